import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { ApprovalRequest, AnswerChannel, HumanAnswer, OfferCallbacks, OfferedRequest } from '../../src/escalation/channel.js';
import { CLI, spawnBroker, tempDir } from '../helpers/cli.js';

export interface RunningDaemon {
  readonly child: ChildProcess;
  readonly home: string;
  readonly socket: string;
  readonly stderr: () => string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** Starts `acp-broker daemon` (no web inbox, no desktop unless asked) and waits until it listens. */
export async function startDaemon(options: { home?: string; args?: string[]; env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {}): Promise<RunningDaemon> {
  const home = options.home ?? tempDir('acp-broker-daemon-');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, 'daemon', ...(options.args ?? ['--no-web', '--no-desktop'])], {
    env: { ...process.env, ...options.env, ACP_BROKER_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  child.stdout!.resume();
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  await waitFor(() => /listening on/.test(err), 10_000, () => `daemon did not start: ${err}`);
  return {
    child, home, socket: join(home, 'daemon', 'approvals.sock'), stderr: () => err, exit,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exit;
    },
  };
}

export async function waitFor(check: () => boolean, timeoutMs = 5000, message: () => string = () => 'condition not met'): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(message());
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs the CLI to completion in `home`. */
export async function cli(home: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = spawnBroker(args, { ACP_BROKER_HOME: home });
  run.child.stdin.end();
  const { code } = await run.exit;
  return { code, stdout: run.stdout().toString(), stderr: run.stderr() };
}

export function approval(approvalId: string, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    approvalId,
    agent: 'claude-agent-acp',
    workspace: '/home/dev/shop-api',
    sessionId: 'sess-1',
    kind: 'execute',
    title: 'npm publish',
    command: 'npm publish',
    paths: [],
    items: [{ item: 'npm publish', decision: 'ask', rules: ['user:ask-publish'] }],
    reason: 'rule user:ask-publish asks',
    diffs: [],
    options: [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      { optionId: 'acp-broker:allow_always', name: 'Always allow `npm publish` in this project', kind: 'allow_always', covers: 'npm publish in /home/dev/shop-api' },
      { optionId: 'acp-broker:reject_always', name: 'Always reject `npm publish` in this project', kind: 'reject_always', covers: 'npm publish in /home/dev/shop-api' },
    ],
    deadline: undefined,
    ...overrides,
  };
}

export type Outcome = { readonly type: 'answer'; readonly answer: HumanAnswer; readonly via: AnswerChannel } | { readonly type: 'lost' };

/** Offer callbacks that record every call (the contract: at most one of them, once). */
export function recorder(): { callbacks: OfferCallbacks; calls: Outcome[]; settled: Promise<Outcome> } {
  const calls: Outcome[] = [];
  let resolve!: (o: Outcome) => void;
  const settled = new Promise<Outcome>((r) => { resolve = r; });
  return {
    calls,
    settled,
    callbacks: {
      answer: (answer, via) => { calls.push({ type: 'answer', answer, via }); resolve(calls[0]!); },
      lost: () => { calls.push({ type: 'lost' }); resolve(calls[0]!); },
    },
  };
}

const WIRE = { id: 1, line: Buffer.from('{}\n') };

/** An approval as the broker offers it to a channel. */
export function offered(approval: ApprovalRequest): OfferedRequest {
  return { wire: WIRE, approval: () => approval };
}

/** A raw socket peer: send lines, read the JSON lines that come back. */
export async function rawPeer(socketPath: string): Promise<{ socket: Socket; send: (line: string | Buffer) => void; next: () => Promise<Record<string, unknown>>; closed: Promise<void> }> {
  const socket = connect(socketPath);
  await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  const queue: Record<string, unknown>[] = [];
  const waiters: ((v: Record<string, unknown>) => void)[] = [];
  let buffer = '';
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
      buffer = buffer.slice(nl + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(message); else queue.push(message);
    }
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  return {
    socket,
    send: (line) => socket.write(line),
    next: () => new Promise((resolve, reject) => {
      const queued = queue.shift();
      if (queued) { resolve(queued); return; }
      const timer = setTimeout(() => reject(new Error('no message within 5 s')), 5000);
      waiters.push((m) => { clearTimeout(timer); resolve(m); });
    }),
    closed,
  };
}

/** An open approval as `acp-broker approvals list --json` prints it. */
export interface ListedApproval {
  readonly id: string;
  readonly broker: { readonly pid?: number; readonly agent?: string };
  readonly request: ApprovalRequest;
}

/** The daemon's open approvals, through the CLI. */
export async function listApprovals(home: string): Promise<ListedApproval[]> {
  const { code, stdout, stderr } = await cli(home, ['approvals', 'list', '--json']);
  if (code !== 0) throw new Error(`approvals list failed (${code}): ${stderr}`);
  return JSON.parse(stdout || '[]') as ListedApproval[];
}

/** `probe` every 100 ms until it gives a value, or fail naming `what`. */
export async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

