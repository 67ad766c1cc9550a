import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { OWN_PROCESS_GROUP } from '../relay/process-group.js';
import { forwardClientEarly, type EarlyClientInput } from './early-forward.js';

// Deliberately light: `run` spawns the agent with this before loading the relay and the policy engine.

/**
 * A child spawned before the relay was loaded, with what happened to it meanwhile: its 'error' and
 * 'exit' events may have fired before anyone listened.
 */
export interface EarlyChild {
  readonly process: ChildProcess;
  readonly spawnError: () => Error | undefined;
  readonly exited: () => { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Set when the client's input is forwarded before the relay loads (see early-forward.ts). */
  readonly takeClientInput?: () => EarlyClientInput;
  /** What the agent wrote before the relay took over; collecting stops when this is called. */
  readonly takeOutput: () => EarlyOutput;
}

/**
 * Node discards a child's unread output when it exits (it resumes the streams), so what an agent
 * wrote before dying, often the only word on why, is kept here until the relay attaches.
 */
export interface EarlyOutput {
  readonly stdout: Buffer;
  readonly stdoutEnded: boolean;
  readonly stderr: readonly Buffer[];
  readonly stderrEnded: boolean;
}

/** Spawn now, remembering the events that fire before the relay attaches. */
export function spawnEarly(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; clientIn?: Readable } = {}): EarlyChild {
  const child = spawn(command, [...args], {
    stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env, ...(options.cwd ? { cwd: options.cwd } : {}),
    // A process group of its own, so that ending the session ends everything the agent started.
    detached: OWN_PROCESS_GROUP,
  });
  // An agent that exits at once closes its stdin under the early forwarder's writes: that EPIPE is
  // the agent's exit, reported as such by the relay, not a crash of the broker.
  child.stdin?.on('error', () => {});
  let error: Error | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.once('error', (e) => { error = e; });
  child.once('exit', (code, signal) => { exit = { code, signal }; });
  const takeClientInput = options.clientIn ? forwardClientEarly(options.clientIn, child) : undefined;
  return { process: child, spawnError: () => error, exited: () => exit, takeOutput: collectOutput(child), ...(takeClientInput ? { takeClientInput } : {}) };
}

/** stderr is collected from the start (it is small); stdout only once the agent has exited. */
function collectOutput(child: ChildProcess): () => EarlyOutput {
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  let stdoutEnded = false;
  let stderrEnded = false;
  const onStdout = (chunk: Buffer) => { stdout.push(chunk); };
  const onStdoutEnd = () => { stdoutEnded = true; };
  const onStderr = (chunk: Buffer) => { stderr.push(chunk); };
  const onStderrEnd = () => { stderrEnded = true; };
  const onExit = () => {
    child.stdout?.on('data', onStdout);
    child.stdout?.once('end', onStdoutEnd);
  };
  child.stderr?.on('data', onStderr);
  child.stderr?.once('end', onStderrEnd);
  child.once('exit', onExit);
  return () => {
    child.off('exit', onExit);
    child.stdout?.off('data', onStdout);
    child.stdout?.off('end', onStdoutEnd);
    child.stderr?.off('data', onStderr);
    child.stderr?.off('end', onStderrEnd);
    // The relay attaches its own readers in this same turn: no chunk falls between.
    return { stdout: Buffer.concat(stdout), stdoutEnded, stderr, stderrEnded };
  };
}
