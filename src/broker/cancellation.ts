import { ACP } from '../protocol/acp.js';
import type { RpcId } from '../protocol/jsonrpc.js';
import { idKey } from '../protocol/jsonrpc.js';
import type { Escalations } from './escalations.js';
import type { Handler, Incoming, RequestOrNotification, Side, Verdict } from './handler.js';
import { sessionIdOf } from './params.js';
import type { ReadinessGate } from './readiness.js';

/**
 * Cancellation of requests nobody has answered yet: the editor's `session/cancel` settles the
 * session's permission requests the broker still holds; the agent's `$/cancel_request` settles one it
 * holds (the editor never saw it, so the cancel is the broker's to honour) or withdraws an escalated
 * one from the channels other than the editor (which receives the cancel itself).
 */
export class Cancellation implements Handler {
  readonly name = 'cancellation';

  constructor(private readonly deps: { readonly gate: ReadinessGate; readonly escalations: Escalations }) {}

  readonly client: Side = {
    interest: { methods: [{ method: ACP.sessionCancel, word: ACP.sessionCancel, needle: 'ssion/' }] },
    onMessage: ({ message }) => {
      const sessionId = (message.params as { sessionId?: unknown } | undefined)?.sessionId;
      if (message.type === 'notification' && typeof sessionId === 'string') {
        this.deps.gate.settle((held) => isPermissionRequest(held.incoming) && sessionIdOf(held.incoming.message.params) === sessionId, 'session/cancel');
      }
      return 'forward';
    },
  };

  readonly agent: Side = {
    interest: { methods: [{ method: ACP.cancelRequest, word: ACP.cancelRequest }] },
    onMessage: ({ message }) => this.onAgentCancel(message),
  };

  private onAgentCancel(message: RequestOrNotification): Verdict {
    if (message.type !== 'notification') return 'forward';
    const requestId = (message.params as { requestId?: RpcId } | undefined)?.requestId;
    if (requestId === undefined) return 'forward';
    let held = false;
    this.deps.gate.settle((entry) => {
      const match = isPermissionRequest(entry.incoming) && entry.incoming.message.type === 'request' && idKey(entry.incoming.message.id) === idKey(requestId);
      held ||= match;
      return match;
    }, '$/cancel_request');
    if (held) return 'taken';
    this.deps.escalations.cancelledByAgent(requestId);
    return 'forward';
  }
}

function isPermissionRequest(incoming: Incoming<RequestOrNotification>): boolean {
  return incoming.message.method === ACP.requestPermission;
}
