import { performance } from 'node:perf_hooks';
import { heldCancelledEvent, unjudgedFallbackEvent, type CancelledBy } from '../audit/event.js';
import type { Judged } from '../decision/decide.js';
import { ACP, isOfferedOption, type OfferedOption, type PermissionOutcome } from '../protocol/acp.js';
import type { RpcId } from '../protocol/jsonrpc.js';
import type { SessionState } from '../session/sessions.js';
import { answerFor } from './answer.js';
import type { Escalations } from './escalations.js';
import { humanAnswer } from './escalations.js';
import type { Handler, Incoming, RequestOrNotification, Side, Verdict } from './handler.js';
import type { Judge } from './judge.js';
import { settledAs, type JudgedCall, type Outbox } from './outbox.js';
import { sessionIdOf } from './params.js';

export interface PermissionRequestsDeps {
  readonly outbox: Outbox;
  readonly judge: Judge;
  readonly state: SessionState;
  readonly escalations: Escalations;
  /** Nobody can answer in the editor (`exec`, `--non-interactive`). */
  readonly nonInteractive: boolean;
  readonly log: (message: string) => void;
}

/**
 * `session/request_permission`: decided by policy and grants; allowed or denied at once with the
 * agent's own option of that polarity, else escalated to a human — or, when nobody can answer,
 * given the policy's non-interactive fallback.
 */
export class PermissionRequests implements Handler {
  readonly name = 'permission-requests';

  constructor(private readonly deps: PermissionRequestsDeps) {}

  readonly agent: Side = {
    interest: { methods: [{ method: ACP.requestPermission, word: ACP.requestPermission, needle: 'quest_permission', holdUntilReady: true }] },
    onMessage: (incoming) => this.onRequest(incoming),
  };

  /** Fail closed at the outermost seam: whatever goes wrong, the request is never allowed by us. */
  private onRequest({ message, line }: Incoming<RequestOrNotification>): Verdict {
    if (message.type !== 'request') return 'forward';
    const { id, params } = message;
    try {
      this.decide(id, params, line);
    } catch (error) {
      this.deps.log(`acp-broker: internal error on a permission request; failing closed: ${(error as Error).stack ?? error}`);
      if (!this.deps.nonInteractive) return 'forward';
      const answer = answerFor('deny', optionsOf(params));
      this.deps.outbox.answerAgent(id, answer.type === 'outcome' ? answer.outcome : { outcome: 'cancelled' });
    }
    return 'taken';
  }

  private decide(id: RpcId, params: unknown, line: Buffer): void {
    const started = performance.now();
    const { outbox, state } = this.deps;
    const p = params as { sessionId?: unknown; toolCall?: unknown } | undefined;
    const options = optionsOf(params);
    if (typeof p?.sessionId !== 'string' || !p.toolCall || typeof p.toolCall !== 'object' || options.length === 0) {
      // Malformed: the broker cannot decide it, so the human (or the agent's own error handling) does.
      this.deps.log('acp-broker: malformed session/request_permission; forwarding it to the client undecided');
      return this.askOrFallback(id, undefined, options, line, undefined);
    }
    const sessionId = p.sessionId;
    const toolCall = p.toolCall as Record<string, unknown>;
    if (typeof toolCall.toolCallId === 'string') state.noteAsked(sessionId, toolCall.toolCallId);
    const merged = state.mergedToolCall(sessionId, toolCall);
    let judged: Judged | undefined;
    try {
      judged = this.deps.judge.judge(sessionId, merged, true);
    } catch (error) {
      // Fail closed: an error never becomes an allow.
      this.deps.log(`acp-broker: error while deciding a permission request: ${(error as Error).stack ?? error}`);
    }
    if (!judged) return this.askOrFallback(id, sessionId, options, line, undefined);
    const { facts, evaluation } = judged;
    const toolCallId = typeof toolCall.toolCallId === 'string' ? toolCall.toolCallId : undefined;
    const call = { sessionId, toolCallId, facts, evaluation, started };
    if (evaluation.decision === 'allow' || evaluation.decision === 'deny') {
      const answer = answerFor(evaluation.decision, options);
      // Allowed, but the agent offers no one-shot allow: only a human may pick a persistent option —
      // or has already, when a grant (the human's own "always") allows it.
      const granted = answer.type === 'needs_human' && evaluation.source.type === 'grant' ? humanAnswer('allow', options) : undefined;
      const outcome = answer.type === 'outcome' ? answer.outcome : granted?.outcome === 'selected' ? granted : undefined;
      if (outcome) {
        outbox.answerAgent(id, outcome);
        outbox.record(call, settledAs(evaluation.decision, outcome, evaluation.source));
        return;
      }
    }
    const channels = this.deps.escalations.offer({ call, id, agentOptions: options, line, toolCall: merged });
    if (channels.length > 0) {
      const editor = channels.some((channel) => channel.answersAs.includes('client'));
      outbox.record(call, { decision: 'ask', outcome: 'escalated', source: { type: editor ? 'client' : 'daemon' } });
      return;
    }
    this.askOrFallback(id, sessionId, options, line, call);
  }

  /**
   * `ask` when the call was judged (`call`) or could not be (`undefined`) and no channel took it:
   * to the editor when someone can answer there; else the policy's non-interactive fallback.
   */
  private askOrFallback(id: RpcId, sessionId: string | undefined, options: readonly OfferedOption[], line: Buffer, call: JudgedCall | undefined): void {
    const { outbox } = this.deps;
    if (!this.deps.nonInteractive) return outbox.toClient(line);
    const fallback = this.deps.judge.fallback(sessionId);
    const answer = answerFor(fallback, options);
    const outcome: PermissionOutcome = answer.type === 'outcome' ? answer.outcome : { outcome: 'cancelled' };
    outbox.answerAgent(id, outcome);
    const settled = settledAs('deny', outcome, { type: 'fallback', fallback });
    if (call) return outbox.record(call, settled);
    const time = outbox.clock();
    outbox.audit(() => unjudgedFallbackEvent({ time, decisionId: outbox.newDecisionId(), sessionId, decision: settled.decision, outcome: settled.outcome, fallback }));
  }

  /** Settled while held (before decisions could be made): cancelled — answered unless the broker is stopping. */
  settleHeld({ message }: Incoming<RequestOrNotification>, by: CancelledBy): void {
    if (message.type !== 'request' || message.method !== ACP.requestPermission) return;
    const { outbox } = this.deps;
    if (by !== 'shutdown') outbox.answerAgent(message.id, { outcome: 'cancelled' });
    const sessionId = sessionIdOf(message.params);
    const time = outbox.clock();
    outbox.audit(() => heldCancelledEvent({ time, decisionId: outbox.newDecisionId(), sessionId, by }));
  }
}

/** The request's well-formed options: its own list when all are (the usual case: no copy), never mutated. */
function optionsOf(params: unknown): readonly OfferedOption[] {
  const options = (params as { options?: unknown } | undefined)?.options;
  if (!Array.isArray(options)) return NO_OPTIONS;
  for (let i = 0; i < options.length; i++) if (!isOfferedOption(options[i])) return options.filter(isOfferedOption);
  return options as OfferedOption[];
}

const NO_OPTIONS: readonly OfferedOption[] = Object.freeze([]);
