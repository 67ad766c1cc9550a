import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { Broker, type BrokerDeps } from '../broker/broker.js';
import { INTERCEPTED_METHODS } from '../protocol/acp.js';
import { encode, RPC_ERRORS } from '../protocol/jsonrpc.js';
import { DEFAULT_MAX_LINE_BYTES } from '../protocol/line-splitter.js';
import { BatchWriter, pumpLines } from './connect.js';
import { spawnEarly, type EarlyChild } from '../startup/early-child.js';
import { OversizedAgentLines } from './oversized-agent-lines.js';
import { endAgentGroup, signalAgentTree } from './process-group.js';

export interface AgentSession {
  /** The agent's exit code (128+signal when killed), once it has exited and its output is relayed. */
  readonly exitCode: Promise<number>;
  readonly broker: Broker;
  readonly child: ChildProcess;
  /** Why the agent could not be started, once exitCode has resolved (127) for that reason. */
  readonly startError: () => Error | undefined;
}

export interface RunAgentOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly clientIn: Readable;
  readonly clientOut: Writable;
  readonly stderr: Writable;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** After client EOF, how long the agent may take to exit before it is terminated. */
  readonly graceMs?: number;
  /**
   * Lines longer than this are streamed through unparsed, in constant memory; an agent line among
   * them that may be an intercepted request is made unparseable and refused (see
   * oversized-agent-lines.ts). Default: `ACP_BROKER_MAX_LINE_BYTES` from the environment, else 64 MiB.
   */
  readonly maxLineBytes?: number;
  /** An agent spawned earlier (see startup/early-start.ts); `command`/`args` then only name it in messages. */
  readonly child?: EarlyChild;
  readonly deps: Omit<BrokerDeps, 'toAgent' | 'toClient'>;
  /** Told of every chunk either side sends: the broker's own background work yields to real traffic. */
  readonly onTraffic?: () => void;
}

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

/**
 * After the agent exits, its stdout is read until it ends. A process the agent started may hold it
 * open: then reading stops once nothing has arrived for QUIET_MS, or after AFTER_EXIT_MS of reading
 * in all (time the client spends not reading does not count: a slow client still gets everything).
 */
const QUIET_MS = 1000;
const AFTER_EXIT_MS = 5000;
const POLL_MS = 100;
const STDERR_AFTER_EXIT_MS = 500;

/** The env fallback for the line maximum (a positive integer of bytes), for tests and emergencies. */
function maxLineBytesFrom(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.ACP_BROKER_MAX_LINE_BYTES;
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return undefined;
  const n = Number(raw);
  return n >= 1 ? n : undefined;
}

/** Spawn the agent and relay both directions through the broker until the agent exits. */
export function runAgent(options: RunAgentOptions): AgentSession {
  const early = options.child ?? spawnEarly(options.command, options.args, {
    ...(options.env ? { env: options.env } : {}), ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const child = early.process;
  const agentIn = child.stdin!;
  const agentOut = child.stdout!;
  const maxLineBytes = options.maxLineBytes ?? maxLineBytesFrom(process.env) ?? DEFAULT_MAX_LINE_BYTES;
  agentIn.on('error', () => { /* the agent closed its stdin or died; exit handling follows */ });
  options.clientOut.on('error', () => clientGone());
  // An editor that closed our stderr must not take the broker down: there is just nobody to tell.
  options.stderr.on('error', () => {});
  child.stderr!.on('error', () => {});
  const earlyOutput = early.takeOutput();
  for (const chunk of earlyOutput.stderr) if (!options.stderr.destroyed) options.stderr.write(chunk);
  child.stderr!.pipe(options.stderr, { end: false });
  // What the agent wrote to stderr before dying is often the only word on why: wait for it (a
  // grandchild may hold the pipe open, so not forever).
  const stderrDone = earlyOutput.stderrEnded ? Promise.resolve() : new Promise<void>((resolve) => {
    child.stderr!.once('close', resolve);
    child.stderr!.once('end', resolve);
  });
  const stderrRelayed = () => Promise.race([stderrDone, new Promise<void>((resolve) => setTimeout(resolve, STDERR_AFTER_EXIT_MS).unref())]);
  const warn = (message: string) => { if (!options.stderr.destroyed) options.stderr.write(`${message}\n`); };

  const agentWriter = new BatchWriter(agentIn);
  const clientWriter = new BatchWriter(options.clientOut);
  const batches = [agentWriter, clientWriter];
  // Counts what the broker writes, so a line it failed on can be told apart from one it acted on.
  let brokerWrites = 0;
  const toAgent = (bytes: Buffer) => { brokerWrites++; agentWriter.write(bytes); };
  const toClient = (bytes: Buffer) => { brokerWrites++; clientWriter.write(bytes); };
  // The broker's audit work waits until the message in hand is handled: the batch writers flush at
  // the end of a chunk, so the agent's answer leaves first (bench/RESULTS.md: "Figures behind the code's comments").
  const auditQueue = afterHandling((error) => warn(`acp-broker: could not record an audit event: ${(error as Error)?.stack ?? String(error)}`));
  const broker = new Broker({ ...options.deps, toAgent, toClient, deferAudit: auditQueue.defer });
  // Client lines the early forwarder already gave the agent: the broker notes them, in order,
  // before it sees anything from the agent. Taken over in this turn, with the pump attached below.
  const earlyInput = options.child?.takeClientInput?.();
  for (const line of earlyInput?.forwarded ?? []) {
    try {
      broker.observeClient(line);
    } catch (error) {
      warn(`acp-broker: internal error on a line from the client: ${(error as Error)?.stack ?? String(error)}`);
    }
  }

  let agentExited = false;
  let terminateTimer: NodeJS.Timeout | undefined;
  const graceMs = options.graceMs ?? 2000;
  const stopAgent = () => {
    if (agentExited || terminateTimer) return;
    if (!agentIn.writableEnded) agentIn.end();
    terminateTimer = setTimeout(() => {
      if (agentExited) return;
      signalAgentTree(child, 'SIGTERM');
      terminateTimer = setTimeout(() => { if (!agentExited) signalAgentTree(child, 'SIGKILL'); }, graceMs).unref();
    }, graceMs);
    terminateTimer.unref();
  };
  // Settle what the editor can no longer answer, then close the agent's input.
  const clientGone = () => {
    try {
      broker.clientGone();
    } catch (error) {
      warn(`acp-broker: internal error settling requests after the editor left: ${(error as Error)?.stack ?? String(error)}`);
    }
    stopAgent();
  };

  pumpLines({
    source: options.clientIn, sink: agentWriter, maxLineBytes, batches, scanner: broker.clientScanner,
    ...(earlyInput ? { initial: earlyInput.rest, alreadyEnded: earlyInput.ended } : {}),
    onLine: guarded('client', (line) => broker.fromClient(line), (line) => agentWriter.write(line)),
    onEnd: () => clientGone(),
    ...(options.onTraffic ? { onData: options.onTraffic } : {}),
  });
  let agentOutputEnded: () => void;
  const outputDone = new Promise<void>((resolve) => { agentOutputEnded = resolve; });
  let lastOutput = Date.now();
  // Told by the pump below of each chunk it reads (one 'data' listener, not two: bench/RESULTS.md,
  // "Issue 14, fourth session").
  const onTraffic = options.onTraffic;
  const agentOutputSeen = () => { lastOutput = Date.now(); onTraffic?.(); };
  const oversized = new OversizedAgentLines({
    maxLineBytes, toClient: (bytes, end) => (end ? clientWriter.closeLine(bytes) : clientWriter.openLine(bytes)), toAgent: (bytes) => agentWriter.write(bytes), warn,
  });
  const agentPump = pumpLines({
    source: agentOut, sink: clientWriter, maxLineBytes, batches, scanner: broker.agentScanner,
    ...(earlyOutput.stdout.length > 0 || earlyOutput.stdoutEnded ? { initial: earlyOutput.stdout, alreadyEnded: earlyOutput.stdoutEnded } : {}),
    oversized: (bytes, end) => oversized.piece(bytes, end),
    onLine: guarded('agent', (line) => broker.fromAgent(line), (line) => clientWriter.write(line)),
    onEnd: () => agentOutputEnded(),
    onData: agentOutputSeen,
  });

  /**
   * A line the broker threw on (a bug, or input it did not foresee) must neither crash the relay nor
   * slip through unchecked: an intercepted request gets an error answer (never an allow), anything
   * else is forwarded unchanged. If the broker already wrote something for the line, that stands.
   */
  function guarded(from: 'agent' | 'client', handle: (line: Buffer) => void, forward: (line: Buffer) => void): (line: Buffer) => void {
    return (line) => {
      const before = brokerWrites;
      try {
        handle(line);
      } catch (error) {
        warn(`acp-broker: internal error on a line from the ${from}: ${(error as Error)?.stack ?? String(error)}`);
        if (brokerWrites !== before) return;
        const request = from === 'agent' ? interceptedRequestId(line) : undefined;
        if (request) {
          agentWriter.write(encode({
            jsonrpc: '2.0', id: request.id,
            error: { code: RPC_ERRORS.internalError, message: `acp-broker could not check this ${request.method} request; it was not relayed` },
          }));
        } else {
          forward(line);
        }
      }
    };
  }

  let startError: Error | undefined;
  const exitCode = new Promise<number>((resolve) => {
    const onError = (error: Error) => {
      agentExited = true;
      startError = error;
      warn(`acp-broker: cannot start the agent \`${options.command}\`: ${error.message}`);
      broker.shutdown();
      auditQueue.drain();
      resolve(127);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      agentExited = true;
      if (terminateTimer) clearTimeout(terminateTimer);
      // What the agent left running ends with it; its output meanwhile is still relayed.
      void Promise.all([agentOutputRelayed(), stderrRelayed(), endAgentGroup(child.pid, graceMs)]).then(() => {
        broker.shutdown();
        auditQueue.drain();
        resolve(code ?? 128 + (SIGNAL_NUMBERS[signal ?? ''] ?? 1));
      });
    };
    // An early child may have failed or exited before these listeners existed.
    const failed = early.spawnError();
    const exited = early.exited();
    if (failed) onError(failed);
    else if (exited) onExit(exited.code, exited.signal);
    else {
      child.on('error', onError);
      child.on('exit', onExit);
    }
  });

  /**
   * Relay everything the agent wrote before it died, however slowly the client reads, but do not
   * wait forever for a stdout that a grandchild process holds open, silent or not.
   */
  function agentOutputRelayed(): Promise<void> {
    let reading = 0;
    let last = Date.now();
    return Promise.race([outputDone, new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        const now = Date.now();
        // While the client is not reading, the agent's output is paused: that time is the client's.
        if (options.clientOut.writableNeedDrain) lastOutput = now;
        else reading += now - last;
        last = now;
        if (now - lastOutput > QUIET_MS || reading > AFTER_EXIT_MS) {
          clearInterval(poll);
          agentPump.stop();
          resolve();
        }
      }, POLL_MS);
      void outputDone.then(() => clearInterval(poll));
    })]);
  }

  return { exitCode, broker, child, startError: () => startError };
}

/** The id and method of an agent→client request the broker intercepts, if the line is one. */
function interceptedRequestId(line: Buffer): { id: string | number | null; method: string } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  const id = m.id;
  if (typeof m.method !== 'string' || !(typeof id === 'string' || typeof id === 'number' || id === null)) return undefined;
  // JSON may spell the method with escapes; JSON.parse has already undone them.
  return INTERCEPTED_METHODS.has(m.method) ? { id, method: m.method } : undefined;
}

/**
 * Work run in order after the current I/O callback (one microtask for however many items), or at
 * once by `drain` (before the session ends, so nothing queued is lost). A failing item is reported
 * and does not stop the others.
 */
function afterHandling(onError: (error: unknown) => void): { defer: (work: () => void) => void; drain: () => void } {
  let pending: (() => void)[] = [];
  const drain = () => {
    const work = pending;
    pending = [];
    for (const item of work) {
      try {
        item();
      } catch (error) {
        onError(error);
      }
    }
  };
  return {
    defer: (work) => {
      if (pending.push(work) === 1) queueMicrotask(drain);
    },
    drain,
  };
}
