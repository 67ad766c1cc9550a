import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, FIXTURES, tempDir } from '../helpers/cli.js';

export const FAULT_AGENT = join(FIXTURES, 'fault-agent.mjs');

/** One line the broker wrote to its stdout. Lines over KEEP_BYTES are kept only as length and hash. */
export interface OutLine {
  readonly bytes: number;
  readonly sha256: string;
  /** The line without its '\n' (absent for long lines). */
  readonly text?: string;
  /** The parsed message, when the line is short JSON. */
  readonly message?: Record<string, any>;
}

const KEEP_BYTES = 4 * 1024 * 1024;

export interface BrokerRun {
  readonly child: ChildProcessWithoutNullStreams;
  readonly dir: string;
  readonly audit: string;
  readonly lines: OutLine[];
  /** Write one line (an object is JSON-encoded) to the broker's stdin. */
  send(message: object | string): void;
  /** Resolve with the first line (from `from` on) that satisfies the predicate, waiting for it if needed. */
  waitFor(predicate: (line: OutLine) => boolean, what: string, from?: number): Promise<OutLine>;
  /** The `_fault/*` report of that name. */
  report(name: string, from?: number): Promise<Record<string, any>>;
  stderr(): string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolved once the broker's stdout has ended. */
  readonly stdoutEnded: Promise<void>;
}

export interface StartOptions {
  policy?: string;
  /** Replaces `--policy FILE` altogether (several layers). */
  policyArgs?: string[];
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Agent command; the fault agent by default. */
  agent?: string[];
  dir?: string;
  /**
   * Start the session `sess-1` in `dir` first (default): the broker gives a session it never saw
   * start no workspace. `false` for tests that account for every byte the client sends.
   */
  session?: boolean;
}

/** A minimal policy: `npm test` allowed, `git push` denied, anything else asked. */
export const POLICY = `version: 1
default: ask
non_interactive: deny
rules:
  - id: tests
    decision: allow
    match: { kind: execute, command: ["npm test", "echo"] }
  - id: no-push
    decision: deny
    reason: not from an agent
    match: { command: ["git push"] }
  - id: secrets
    decision: deny
    match: { paths: ["**/.env"] }
`;

export function writePolicy(dir: string, text = POLICY, name = 'policy.yaml'): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The id of the driver's own `session/new`. */
export const SESSION_REQUEST_ID = 'fault-driver-session';

/** Spawn the real CLI around the fault agent (or `options.agent`) and follow its stdout line by line. */
export function startBroker(options: StartOptions = {}): BrokerRun {
  const dir = options.dir ?? tempDir('acp-broker-fault-');
  const policyArgs = options.policyArgs ?? ['--policy', options.policy ?? writePolicy(dir)];
  const audit = join(dir, 'audit.jsonl');
  const agent = options.agent ?? [process.execPath, FAULT_AGENT];
  const args = ['run', ...policyArgs, ...(options.args?.some((a) => a === '--audit') ? [] : ['--audit', audit]), ...(options.args ?? []), '--', ...agent];
  const child = spawn(process.execPath, [CLI, ...args], {
    // Its own cwd: the fallback workspace, so no project policy of the checkout applies.
    cwd: dir, env: { ...process.env, ACP_BROKER_HOME: dir, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => { /* the broker may be gone already */ });
  const lines: OutLine[] = [];
  const waiters = new Set<() => void>();
  let err = '';
  child.stderr.on('data', (c: Buffer) => { err += c.toString(); });

  let hash = createHash('sha256');
  let bytes = 0;
  let kept: Buffer[] = [];
  const finishLine = () => {
    const text = bytes <= KEEP_BYTES ? Buffer.concat(kept).toString('utf8') : undefined;
    let message: Record<string, any> | undefined;
    if (text !== undefined) {
      try {
        const parsed = JSON.parse(text) as unknown;
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) message = parsed as Record<string, any>;
      } catch { /* not JSON */ }
    }
    lines.push({ bytes, sha256: hash.digest('hex'), ...(text !== undefined ? { text } : {}), ...(message ? { message } : {}) });
    hash = createHash('sha256');
    bytes = 0;
    kept = [];
    for (const wake of [...waiters]) wake();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      hash.update(piece);
      bytes += piece.length;
      if (bytes <= KEEP_BYTES) kept.push(Buffer.from(piece));
      else kept = [];
      if (nl === -1) break;
      finishLine();
      start = nl + 1;
    }
  });
  const stdoutEnded = new Promise<void>((resolve) => child.stdout.on('close', () => {
    if (bytes > 0) finishLine();
    resolve();
  }));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => {
    for (const wake of [...waiters]) wake();
    resolve({ code, signal });
  }));
  let exited = false;
  void exit.then(() => { exited = true; });

  const waitFor = (predicate: (line: OutLine) => boolean, what: string, from = 0) => new Promise<OutLine>((resolve, reject) => {
    let index = from;
    const check = () => {
      for (; index < lines.length; index++) {
        if (predicate(lines[index]!)) { waiters.delete(check); resolve(lines[index]!); return; }
      }
      if (exited) {
        waiters.delete(check);
        void stdoutEnded.then(() => {
          const late = lines.slice(from).find(predicate);
          if (late) resolve(late);
          else reject(new Error(`the broker exited before ${what}; stderr:\n${err}`));
        });
      }
    };
    waiters.add(check);
    check();
  });

  if (options.session !== false && !options.agent) {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: SESSION_REQUEST_ID, method: 'session/new', params: { cwd: dir, mcpServers: [] } })}\n`);
  }

  return {
    child, dir, audit, lines, exit, stdoutEnded,
    send: (message) => {
      if (child.stdin.writable) child.stdin.write(typeof message === 'string' ? `${message}\n` : `${JSON.stringify(message)}\n`);
    },
    waitFor,
    report: async (name, from = 0) => (await waitFor((l) => l.message?.method === `_fault/${name}`, `the agent's _fault/${name}`, from)).message!.params,
    stderr: () => err,
  };
}

/** A JSON-RPC notification to the fault agent. */
export function command(name: string, params: object = {}): object {
  return { jsonrpc: '2.0', method: `_fault/${name}`, params };
}

export const OPTIONS = [
  { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

export function permissionRequest(id: number | string, commandLine: string, extra: { toolCallId?: string; sessionId?: string } = {}): string {
  return JSON.stringify({
    jsonrpc: '2.0', id, method: 'session/request_permission',
    params: {
      sessionId: extra.sessionId ?? 'sess-1', options: OPTIONS,
      toolCall: { toolCallId: extra.toolCallId ?? `call-${id}`, title: commandLine, kind: 'execute', rawInput: { command: commandLine } },
    },
  });
}

export function readRequest(id: number | string, path: string): string {
  return JSON.stringify({
    jsonrpc: '2.0', id, method: 'session/request_permission',
    params: { sessionId: 'sess-1', options: OPTIONS, toolCall: { toolCallId: `call-${id}`, title: `Read ${path}`, kind: 'read', locations: [{ path }] } },
  });
}

/** Whether a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

export function killQuietly(pid: number | undefined): void {
  if (pid === undefined) return;
  try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
}

/** Peak and current resident set of a process, in bytes (Linux). */
export function memoryOf(pid: number): { peak: number; rss: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(/\s(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(field)) ?? '')?.[1] ?? NaN) * 1024;
    return { peak: kb('VmHWM:'), rss: kb('VmRSS:') };
  } catch {
    return undefined;
  }
}

/** Reset a process's peak resident set to its current one (Linux `clear_refs`); false if not possible. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Every JSON-RPC response the agent read, from its RECORD_TO file. */
export function recordedResponses(file: string): Record<string, any>[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0 && l.length < KEEP_BYTES).flatMap((l) => {
    try {
      const m = JSON.parse(l) as Record<string, any>;
      return m && typeof m === 'object' && !Array.isArray(m) && !('method' in m) && 'id' in m ? [m] : [];
    } catch {
      return [];
    }
  });
}
