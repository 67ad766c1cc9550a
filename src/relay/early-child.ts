import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { OWN_PROCESS_GROUP } from './process-group.js';

// Deliberately light: `run` spawns the agent with this before loading the relay and the policy engine.

/**
 * A child spawned before the relay was loaded, with what happened to it meanwhile: its 'error' and
 * 'exit' events may have fired before anyone listened.
 */
export interface EarlyChild {
  readonly process: ChildProcess;
  readonly spawnError: () => Error | undefined;
  readonly exited: () => { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Set when the client's input is forwarded before the relay loads (see forwardClientEarly). */
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

/** What the early forwarder did with the client's input, handed to the relay when it takes over. */
export interface EarlyClientInput {
  /** Complete lines already written to the agent, in order: the broker observes them, never forwards them again. */
  readonly forwarded: readonly Buffer[];
  /** The start of a line not yet complete, not forwarded: the relay's first bytes. */
  readonly rest: Buffer;
  /** The client's input had already ended. */
  readonly ended: boolean;
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

/** Early forwarding stops (the rest waits for the relay) once this much has been forwarded. */
const EARLY_FORWARD_LIMIT = 1024 * 1024;

/**
 * Until the relay has loaded, the client's complete lines go straight to the agent: the editor's
 * `initialize` then reaches the agent while it boots instead of after the broker has loaded. Safe
 * because nothing from the client can need a decision before the broker has seen a line from the
 * agent (there is nothing yet to answer or cancel), and the agent's output waits in its pipe for
 * the relay. The broker later observes the forwarded lines (session/new and the like) in order,
 * before the first agent line. Returns the hand-over: forwarding stops when it is called.
 */
export function forwardClientEarly(clientIn: Readable, child: ChildProcess): () => EarlyClientInput {
  const forwarded: Buffer[] = [];
  let forwardedBytes = 0;
  let rest = Buffer.alloc(0);
  let ended = false;
  let paused = false;
  const onData = (chunk: Buffer) => {
    const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    let lastNewline = data.lastIndexOf(10);
    // A line the relay must judge (a mode switch) stops forwarding: it and what follows wait for it.
    const judged = firstJudgedLine(data, lastNewline + 1);
    const stop = judged !== -1;
    if (stop) lastNewline = judged - 1;
    // Copies: the stream may reuse a chunk's memory once this handler returns.
    rest = Buffer.from(data.subarray(lastNewline + 1));
    if (lastNewline !== -1) {
      const lines = Buffer.from(data.subarray(0, lastNewline + 1));
      forwarded.push(lines);
      forwardedBytes += lines.length;
      child.stdin?.write(lines);
    }
    if (stop || forwardedBytes + rest.length >= EARLY_FORWARD_LIMIT) {
      // Enough held in memory: the client waits for the relay.
      clientIn.off('data', onData);
      clientIn.pause();
      paused = true;
    }
  };
  const onEnd = () => { ended = true; };
  clientIn.on('data', onData);
  clientIn.once('end', onEnd);
  // The relay attaches its own listener in the same turn as this hand-over, so no chunk falls between.
  return () => {
    clientIn.off('data', onData);
    clientIn.off('end', onEnd);
    if (paused) clientIn.resume();
    return { forwarded: splitLines(forwarded), rest, ended };
  };
}

/**
 * Client requests the broker may refuse (broker/modes.ts): spelled out, or with escapes that could
 * spell them. Kept here, free of imports: this module loads before the relay.
 */
const JUDGED_NEEDLES = ['set_mode', 'set_config_option', '\\u', '\\/'].map((needle) => Buffer.from(needle));

/** Where the first complete line (before `end`) holding a judged request starts, or -1. */
function firstJudgedLine(data: Buffer, end: number): number {
  let first = -1;
  for (const needle of JUDGED_NEEDLES) {
    const at = data.indexOf(needle);
    if (at !== -1 && at < end && (first === -1 || at < first)) first = at;
  }
  return first === -1 ? -1 : data.lastIndexOf(10, first) + 1;
}

function splitLines(blocks: readonly Buffer[]): Buffer[] {
  const lines: Buffer[] = [];
  for (const block of blocks) {
    for (let start = 0; start < block.length;) {
      const end = block.indexOf(10, start) + 1;
      lines.push(block.subarray(start, end));
      start = end;
    }
  }
  return lines;
}
