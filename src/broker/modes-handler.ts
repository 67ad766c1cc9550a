import { ACP } from '../protocol/acp.js';
import type { Handler, Incoming, RequestOrNotification, Response, Side, Verdict } from './handler.js';
import type { Judge } from './judge.js';
import { SET_CONFIG_OPTION, SET_MODE, type ModeGuard } from './mode-guard.js';
import type { ReadinessGate } from './readiness.js';
import type { SessionState } from '../session/sessions.js';

/**
 * Session modes as they change: the editor setting one (refused when forbidden), the agent
 * reporting one (a forbidden mode is left again), and the agent's answers to the broker's own
 * switches. Session results that start in a mode reach the guard through the session observer.
 */
export class ModesHandler implements Handler {
  readonly name = 'modes';

  constructor(private readonly deps: { readonly guard: ModeGuard; readonly gate: ReadinessGate; readonly state: SessionState; readonly judge: Judge }) {}

  readonly client: Side = {
    interest: {
      methods: [
        { method: SET_MODE, word: SET_MODE, needle: 'ssion/' },
        { method: SET_CONFIG_OPTION, word: SET_CONFIG_OPTION, needle: 'ssion/' },
      ],
    },
    onMessage: (incoming) => this.onClientRequest(incoming),
  };

  readonly agent: Side = {
    interest: {
      methods: [
        // One short needle for both (bench/RESULTS.md, "The prefilter's needles").
        { method: ACP.sessionUpdate, word: 'current_mode_update', needle: '_upda' },
        { method: ACP.sessionUpdate, word: 'config_option_update', needle: '_upda' },
      ],
      responses: [{ word: '"result"', needle: 'result"' }, { word: '"error"', needle: 'rror"' }],
    },
    awaitsResponses: () => this.deps.guard.awaitsResponses(),
    onMessage: (incoming) => this.onModeUpdate(incoming),
    onResponse: ({ message }: Incoming<Response>) => this.deps.guard.onAgentResponse(message.id, message.error) ? 'taken' : 'forward',
  };

  private onClientRequest({ message, alreadyForwarded }: Incoming<RequestOrNotification>): Verdict {
    if (message.type !== 'request' || alreadyForwarded) return 'forward';
    const sessionId = (message.params as { sessionId?: unknown } | undefined)?.sessionId;
    const workspace = typeof sessionId === 'string' ? this.deps.state.workspaceOf(sessionId) : undefined;
    return this.deps.guard.onClientRequest(message.method, message.id, message.params, workspace, this.deps.gate.isReady) ? 'taken' : 'forward';
  }

  /** `current_mode_update` / `config_option_update`: relayed at once, checked once the policy is loaded. */
  private onModeUpdate({ message }: Incoming<RequestOrNotification>): Verdict {
    const p = message.params as { sessionId?: unknown; update?: unknown } | undefined;
    const update = p?.update as Record<string, unknown> | undefined;
    if (typeof p?.sessionId !== 'string' || !update || typeof update !== 'object') return 'forward';
    if (update.sessionUpdate !== 'current_mode_update' && update.sessionUpdate !== 'config_option_update') return 'forward';
    const sessionId = p.sessionId;
    this.deps.gate.whenReady(() => this.deps.guard.onModeUpdate(sessionId, update, this.deps.judge.workspaceOf(sessionId)));
    return 'forward';
  }
}
