import { performance } from 'node:perf_hooks';
import type { CancelledBy } from '../audit/event.js';
import type { Judged } from '../decision/decide.js';
import { mergeToolCall } from '../facts/tool-call.js';
import { ACP } from '../protocol/acp.js';
import type { RpcId } from '../protocol/jsonrpc.js';
import { enforcedCallProblem } from './enforced-calls.js';
import type { Handler, Incoming, RequestOrNotification, Side, Verdict } from './handler.js';
import type { Judge } from './judge.js';
import type { Outbox } from './outbox.js';

const ENFORCED_KIND: Readonly<Record<string, 'read' | 'edit' | 'execute'>> = {
  [ACP.fsRead]: 'read', [ACP.fsWrite]: 'edit', [ACP.terminalCreate]: 'execute',
};

/**
 * fs/terminal calls the agent asks the editor to carry out: the editor would run them without
 * asking anyone, so the broker judges each first — denied ones never reach the editor, and one that
 * cannot be judged is refused.
 */
export class EnforcedCalls implements Handler {
  readonly name = 'enforced-calls';

  constructor(private readonly deps: { readonly outbox: Outbox; readonly judge: Judge; readonly log: (message: string) => void }) {}

  readonly agent: Side = {
    interest: {
      methods: [
        { method: ACP.fsRead, word: ACP.fsRead, needle: 'fs/', holdUntilReady: true },
        { method: ACP.fsWrite, word: ACP.fsWrite, needle: 'fs/', holdUntilReady: true },
        { method: ACP.terminalCreate, word: ACP.terminalCreate, needle: '/create', holdUntilReady: true },
      ],
    },
    onMessage: (incoming) => this.onRequest(incoming),
  };

  private onRequest({ message, line }: Incoming<RequestOrNotification>): Verdict {
    if (message.type !== 'request') return 'forward';
    const { id, method, params } = message;
    try {
      this.judgeCall(id, method, params, line);
    } catch (error) {
      this.deps.log(`acp-broker: internal error checking ${method}; refusing it: ${(error as Error).message}`);
      this.deps.outbox.refuseEnforced(id, method, 'the broker could not evaluate this request');
    }
    return 'taken';
  }

  private judgeCall(id: RpcId, method: string, params: unknown, line: Buffer): void {
    const started = performance.now();
    const { outbox } = this.deps;
    const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
    const sessionId = typeof p.sessionId === 'string' ? p.sessionId : undefined;
    const problem = enforcedCallProblem(method, p);
    if (problem) return outbox.refuseEnforced(id, method, `cannot be checked: ${problem}`);
    const kind = ENFORCED_KIND[method]!;
    const call = mergeToolCall(undefined, kind === 'execute'
      ? { toolCallId: `${method}`, kind, rawInput: { command: p.command, args: p.args, cwd: p.cwd } }
      : { toolCallId: `${method}`, kind, locations: [{ path: p.path }], rawInput: { path: p.path } });
    let judged: Judged | undefined;
    try {
      judged = this.deps.judge.judge(sessionId, call);
    } catch (error) {
      this.deps.log(`acp-broker: error while checking ${method}: ${(error as Error).message}`);
    }
    // Cannot evaluate: refuse rather than let an unchecked write or command through.
    if (!judged) return outbox.refuseEnforced(id, method, 'the broker could not evaluate this request');
    const { facts, evaluation } = judged;
    const denied = evaluation.decision === 'deny';
    outbox.record({ sessionId, toolCallId: undefined, facts, evaluation, started },
      { method, decision: evaluation.decision, outcome: denied ? 'denied' : 'passed', source: evaluation.source });
    if (denied) return outbox.refuseEnforced(id, method, evaluation.reason, evaluation.source.type === 'rule' ? evaluation.source.ruleId : undefined);
    outbox.toClient(line);
  }

  /** Held until decisions could be made and the editor left meanwhile: refused, never relayed unchecked. */
  settleHeld({ message }: Incoming<RequestOrNotification>, by: CancelledBy): void {
    if (by !== 'client-gone' || message.type !== 'request') return;
    this.deps.outbox.refuseEnforced(message.id, message.method, 'the editor disconnected before the broker could check this request');
  }
}
