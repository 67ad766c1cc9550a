import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { Broker, type BrokerDeps } from '../broker/broker.js';
import { pumpLines, safeWrite } from './connect.js';

export interface AgentSession {
  /** The agent's exit code (128+signal when killed), once it has exited and its output is relayed. */
  readonly exitCode: Promise<number>;
  readonly broker: Broker;
  readonly child: ChildProcess;
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
  readonly maxLineBytes?: number;
  readonly deps: Omit<BrokerDeps, 'toAgent' | 'toClient'>;
}

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

/** Spawn the agent and relay both directions through the broker until the agent exits. */
export function runAgent(options: RunAgentOptions): AgentSession {
  const child = spawn(options.command, [...options.args], {
    stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env, ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const agentIn = child.stdin!;
  const agentOut = child.stdout!;
  agentIn.on('error', () => { /* the agent closed its stdin or died; exit handling follows */ });
  options.clientOut.on('error', () => clientGone());
  child.stderr!.pipe(options.stderr, { end: false });

  const broker = new Broker({
    ...options.deps,
    toAgent: (bytes) => safeWrite(agentIn, bytes),
    toClient: (bytes) => safeWrite(options.clientOut, bytes),
  });

  let agentExited = false;
  let terminateTimer: NodeJS.Timeout | undefined;
  const graceMs = options.graceMs ?? 2000;
  const stopAgent = () => {
    if (agentExited || terminateTimer) return;
    if (!agentIn.writableEnded) agentIn.end();
    terminateTimer = setTimeout(() => {
      if (agentExited) return;
      child.kill('SIGTERM');
      terminateTimer = setTimeout(() => { if (!agentExited) child.kill('SIGKILL'); }, graceMs).unref();
    }, graceMs);
    terminateTimer.unref();
  };
  const clientGone = () => stopAgent();

  pumpLines({
    source: options.clientIn, sink: agentIn, maxLineBytes: options.maxLineBytes,
    onLine: (line) => broker.fromClient(line),
    onEnd: () => stopAgent(),
  });
  let agentOutputEnded: () => void;
  const outputDone = new Promise<void>((resolve) => { agentOutputEnded = resolve; });
  let lastOutputActivity = Date.now();
  agentOut.on('data', () => { lastOutputActivity = Date.now(); });
  options.clientOut.on('drain', () => { lastOutputActivity = Date.now(); });
  pumpLines({
    source: agentOut, sink: options.clientOut, maxLineBytes: options.maxLineBytes,
    onLine: (line) => broker.fromAgent(line),
    onEnd: () => agentOutputEnded(),
  });

  const exitCode = new Promise<number>((resolve) => {
    child.on('error', (error) => {
      agentExited = true;
      options.stderr.write(`acp-broker: cannot start the agent \`${options.command}\`: ${error.message}\n`);
      broker.shutdown();
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      agentExited = true;
      if (terminateTimer) clearTimeout(terminateTimer);
      // Relay everything the agent wrote before it died, however slowly the client reads, but do
      // not wait forever for a stdout that a grandchild process holds open without writing.
      const drained = Promise.race([outputDone, new Promise<void>((r) => {
        const poll = setInterval(() => {
          if (Date.now() - lastOutputActivity > 1000 && !options.clientOut.writableNeedDrain) { clearInterval(poll); r(); }
        }, 200);
        void outputDone.then(() => clearInterval(poll));
      })]);
      void drained.then(() => {
        broker.shutdown();
        resolve(code ?? 128 + (SIGNAL_NUMBERS[signal ?? ''] ?? 1));
      });
    });
  });
  return { exitCode, broker, child };
}
