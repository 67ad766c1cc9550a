/**
 * One headless run: initialize → session/new → session/prompt through exec's SDK client, every
 * step reported as an `ExecEvent` through `emit`, and how it ended returned (its own exit code per
 * EXEC_EXIT, the stop reason, the duration; exec/output writes the summary). The agent
 * process, the relay and the audit are the caller's: they come in as streams and callbacks.
 */
import type { Readable, Writable } from 'node:stream';
import { Readable as NodeReadable, Writable as NodeWritable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { authMessage } from './auth-hint.js';
import { CLIENT_CAPABILITIES, execClientApp } from './client.js';
import type { ExecEvent } from './events.js';
import type { RunEnd } from './output/output.js';
import { startDeadline } from './run-control.js';
import { exitCodeOf, type RunOutcome } from './outcome.js';
import { eventsFromUpdate } from './session-events.js';
import type { Terminals } from './terminals.js';

export interface ExecRunInput {
  readonly toAgent: Writable;
  readonly fromAgent: Readable;
  readonly agentCommand: readonly [string, ...string[]];
  readonly cwd: string;
  readonly prompt: string;
  readonly mcpServers: readonly acp.McpServer[];
  readonly terminals: Terminals;
  readonly maxDurationMs?: number;
  readonly graceMs?: number;
  /** The agent's exit code once it has exited and everything it wrote was relayed. */
  readonly agentExit: Promise<number>;
  /** Why the agent could not be started, once agentExit has resolved. */
  readonly startError: () => Error | undefined;
  readonly signalAgent: (signal: NodeJS.Signals) => void;
  readonly emit: (event: ExecEvent) => void;
  readonly clock?: () => Date;
}

const VERSION = '0.1.0';

export async function runExec(input: ExecRunInput): Promise<RunEnd> {
  const clock = input.clock ?? (() => new Date());
  const now = () => clock().toISOString();
  const started = clock().getTime();
  const [command] = input.agentCommand;
  let sessionId: string | undefined;
  const app = execClientApp({
    terminals: input.terminals, sessionId: () => sessionId,
    onUpdate: (notification) => {
      if (notification.sessionId !== sessionId) return;
      for (const event of eventsFromUpdate(notification.update, now())) input.emit(event);
    },
  });
  const connection = app.connect(acp.ndJsonStream(
    NodeWritable.toWeb(input.toAgent) as WritableStream<Uint8Array>, NodeReadable.toWeb(input.fromAgent) as ReadableStream<Uint8Array>));
  const deadline = startDeadline({
    maxDurationMs: input.maxDurationMs, ...(input.graceMs !== undefined ? { graceMs: input.graceMs } : {}),
    cancel: () => { if (sessionId) void connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => {}); },
    signalAgent: input.signalAgent,
  });

  const turn = async (): Promise<RunOutcome> => {
    const agent = connection.agent;
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: { name: 'acp-broker-exec', title: 'acp-broker exec', version: VERSION },
    });
    let session: acp.NewSessionResponse;
    try {
      session = await agent.request(acp.methods.agent.session.new, { cwd: input.cwd, mcpServers: [...input.mcpServers] });
    } catch (error) {
      const methods = init.authMethods ?? [];
      if ((error instanceof acp.RequestError && error.code === -32000) || methods.length > 0) {
        return { type: 'failed', code: 'auth_required', message: `${authMessage(input.agentCommand, methods)} (session/new: ${describe(error)})` };
      }
      throw error;
    }
    sessionId = session.sessionId;
    const info = init.agentInfo;
    input.emit({
      v: 1, time: now(), type: 'session', sessionId,
      ...(info ? { agent: { name: info.name, ...(info.version ? { version: info.version } : {}) } } : {}),
    });
    const answer = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: input.prompt }] });
    return { type: 'stopped', stopReason: answer.stopReason };
  };

  const answered: RunOutcome = await turn().catch((error: unknown): RunOutcome => (
    connection.signal.aborted || isClosed(error)
      ? { type: 'failed', code: 'connection_closed', message: 'the agent closed the connection' }
      : { type: 'failed', code: 'turn_failed', message: describe(error) }));
  deadline.disarm();
  // The turn is over: the agent's input closes (it should exit), and every terminal ends with it.
  connection.close();
  input.toAgent.end();
  await input.terminals.closeAll();
  const agentCode = await input.agentExit;
  let outcome = answered;
  const startError = input.startError();
  if (startError) outcome = { type: 'failed', code: 'agent_start_failed', message: `cannot start the agent \`${command}\`: ${startError.message}` };
  else if (deadline.timedOut()) {
    const after = outcome.type === 'stopped' ? `the turn ended ${outcome.stopReason} after session/cancel` : 'the agent was stopped';
    outcome = { type: 'failed', code: 'timed_out', message: `--max-duration reached: ${after}` };
  } else if (outcome.type === 'failed' && outcome.code !== 'auth_required') {
    outcome = { ...outcome, message: `${outcome.message} (agent exit code ${agentCode})` };
  }
  // A turn the agent answered has its stop reason, even when the run timed out meanwhile.
  const stopReason = answered.type === 'stopped' ? answered.stopReason : null;
  if (stopReason !== null) input.emit({ v: 1, time: now(), type: 'stop', stopReason });
  if (outcome.type === 'failed') input.emit({ v: 1, time: now(), type: 'error', code: outcome.code, message: outcome.message });
  return { exitCode: exitCodeOf(outcome), stopReason, durationMs: clock().getTime() - started };
}

function describe(error: unknown): string {
  if (error instanceof acp.RequestError) return `${error.message} (${error.code})${error.data !== undefined ? ` ${JSON.stringify(error.data)}` : ''}`;
  return error instanceof Error ? error.message : String(error);
}

function isClosed(error: unknown): boolean {
  return error instanceof Error && /closed|aborted/i.test(error.message);
}
