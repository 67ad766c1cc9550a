import { unpromptedEvent } from '../audit/event.js';
import type { ToolCallState } from '../facts/tool-call.js';
import { modePolicyOf } from '../policy/modes.js';
import { ACP } from '../protocol/acp.js';
import { encode } from '../protocol/jsonrpc.js';
import type { SessionState } from '../session/sessions.js';
import type { Handler, Incoming, RequestOrNotification, Response, Side, Verdict } from './handler.js';
import type { Judge } from './judge.js';
import { ModeGuard } from './mode-guard.js';
import type { Outbox } from './outbox.js';
import type { ReadinessGate } from './readiness.js';

export interface SessionObserverDeps {
  readonly state: SessionState;
  readonly judge: Judge;
  readonly guard: ModeGuard;
  readonly gate: ReadinessGate;
  readonly outbox: Outbox;
  readonly log: (message: string) => void;
}

/**
 * What the conversation tells the broker: the agent's name, each session's workspace (from
 * session/new, load, resume and their results), and every tool call as it updates — with the calls
 * the agent ran without asking (`unprompted`) recorded, and stopped when the policy says so. A session
 * result that offers modes waits for the policy, so a forbidden starting mode never reaches the editor.
 */
export class SessionObserver implements Handler {
  readonly name = 'session-observer';

  constructor(private readonly deps: SessionObserverDeps) {}

  readonly client: Side = {
    interest: {
      methods: [
        { method: ACP.initialize, word: ACP.initialize },
        { method: ACP.sessionNew, word: ACP.sessionNew, needle: 'ssion/' },
        { method: ACP.sessionLoad, word: ACP.sessionLoad, needle: 'ssion/' },
        { method: ACP.sessionResume, word: ACP.sessionResume, needle: 'ssion/' },
      ],
    },
    onMessage: ({ message }) => {
      if (message.type === 'request') this.deps.state.noteClientRequest(message.method, message.id, message.params);
      return 'forward';
    },
  };

  readonly agent: Side = {
    interest: {
      methods: [{ method: ACP.sessionUpdate, word: 'tool_call', needle: '_call' }],
      responses: [{ word: '"result"', needle: 'result"' }, { word: '"error"', needle: 'rror"' }],
    },
    awaitsResponses: () => this.deps.state.hasPendingResponses(),
    onMessage: (incoming) => this.onToolCallUpdate(incoming),
    onResponse: (incoming) => this.onResponse(incoming),
  };

  private onResponse({ message, line, parsed }: Incoming<Response>): Verdict {
    const { state, guard, gate } = this.deps;
    if (!state.awaitsResponse(message.id)) return 'forward';
    const session = state.noteAgentResponse(message.id, message.result);
    if (!session || !ModeGuard.concerns(message.result)) return 'forward';
    gate.whenReady(() => guard.onSessionResult(message.id, session.sessionId, session.cwd, parsed as Record<string, unknown>, line));
    return 'taken';
  }

  private onToolCallUpdate({ message }: Incoming<RequestOrNotification>): Verdict {
    const p = message.params as { sessionId?: unknown; update?: unknown } | undefined;
    const update = p?.update as Record<string, unknown> | undefined;
    if (typeof p?.sessionId !== 'string' || !update || typeof update !== 'object') return 'forward';
    if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') return 'forward';
    const { state, judge } = this.deps;
    // A session being loaded replays its history: those tool calls ran (or not) long ago.
    if (state.isLoading(p.sessionId)) return 'forward';
    const finished = state.noteToolCallUpdate(p.sessionId, update);
    if (!finished) return 'forward';
    if (!finished.asked) this.noteUnprompted(p.sessionId, finished.finished);
    judge.noteFinished(p.sessionId, finished.finished);
    return 'forward';
  }

  private noteUnprompted(sessionId: string, call: ToolCallState): void {
    const kind = typeof call.kind === 'string' ? call.kind : undefined;
    if (kind !== 'edit' && kind !== 'delete' && kind !== 'move' && kind !== 'execute') return;
    const { outbox, judge } = this.deps;
    const time = outbox.clock();
    const title = typeof call.title === 'string' ? call.title : undefined;
    outbox.audit(() => unpromptedEvent({ time, sessionId, toolCallId: call.toolCallId, kind, title }));
    if (modePolicyOf(judge.policyFor(judge.workspaceOf(sessionId))).unprompted === 'stop') this.stopTurn(sessionId, call);
  }

  /** `unprompted: stop`: the turn is cancelled, and the editor is told why in the agent's stream. */
  private stopTurn(sessionId: string, call: ToolCallState): void {
    const { outbox } = this.deps;
    const what = typeof call.title === 'string' && call.title !== '' ? call.title : String(call.kind);
    this.deps.log(`acp-broker: the agent ran \`${what}\` without asking; the policy says unprompted: stop, so its turn is cancelled`);
    outbox.toAgent(encode({ jsonrpc: '2.0', method: ACP.sessionCancel, params: { sessionId } }));
    outbox.toClient(encode({ jsonrpc: '2.0', method: ACP.sessionUpdate, params: { sessionId, update: {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: `\n[acp-broker] Stopped: the agent ran "${what}" without asking for permission, which this policy does not allow (unprompted: stop).\n` },
    } } }));
  }
}
