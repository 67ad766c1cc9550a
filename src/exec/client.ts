/**
 * exec's ACP client, on the protocol's reference SDK. Every call it answers has passed the broker
 * first (broker/enforced-call-handler.ts): fs and terminal calls reach it only when the policy let
 * them through, so here they are simply carried out. A permission request never reaches it in
 * non-interactive mode; should one arrive, it is refused.
 */
import * as acp from '@agentclientprotocol/sdk';
import { readTextFile, writeTextFile } from './client-fs.js';
import type { Terminals } from './terminals.js';

export interface ClientSide {
  readonly terminals: Terminals;
  /** The session the agent's calls must name (undefined until `session/new` answered). */
  readonly sessionId: () => string | undefined;
  readonly onUpdate: (notification: acp.SessionNotification) => void;
}

/** What exec offers in `initialize`: all of it is implemented below. */
export const CLIENT_CAPABILITIES: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

export function execClientApp(side: ClientSide): acp.ClientApp {
  const inSession = (sessionId: string) => {
    if (sessionId !== side.sessionId()) throw new acp.RequestError(-32002, `Resource not found: session ${sessionId}`, { sessionId });
  };
  return acp.client({ name: 'acp-broker-exec' })
    .onNotification(acp.methods.client.session.update, ({ params }) => side.onUpdate(params))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const reject = params.options.find((o) => o.kind === 'reject_once') ?? params.options.find((o) => o.kind === 'reject_always');
      return { outcome: reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      inSession(params.sessionId);
      return { content: await readTextFile(params) };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      inSession(params.sessionId);
      await writeTextFile(params);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, ({ params }) => {
      inSession(params.sessionId);
      return { terminalId: side.terminals.create(params) };
    })
    .onRequest(acp.methods.client.terminal.output, ({ params }) => {
      inSession(params.sessionId);
      return side.terminals.output(params.terminalId);
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
      inSession(params.sessionId);
      return side.terminals.waitForExit(params.terminalId);
    })
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
      inSession(params.sessionId);
      side.terminals.kill(params.terminalId);
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, ({ params }) => {
      inSession(params.sessionId);
      side.terminals.release(params.terminalId);
      return {};
    });
}
