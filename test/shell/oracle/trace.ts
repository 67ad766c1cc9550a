/**
 * What a traced line really did, read from `strace -f -xx -y` output: the programs it executed
 * (argv; attempts count, failed ones too) and the files it wrote, removed or read (physical paths:
 * `-y` shows where an fd really points; a failed attempt is resolved over the seed like the kernel).
 */
import { posix } from 'node:path';
import { HOME, physical, WORKSPACE } from './seed.js';
import { NOT_FOUND, ORACLE_DIRS } from './sandbox.js';

export interface FileAccess {
  /** Physical path (symlinks resolved). */
  readonly path: string;
  /** The path as the shell named it, joined to the directory it was relative to (not normalised for links). */
  readonly named: string;
}

export interface Observed {
  readonly execs: readonly (readonly string[])[];
  readonly writes: readonly FileAccess[];
  readonly reads: readonly FileAccess[];
}

/** Programs whose exec is transparent: they are real in the sandbox and what they run is traced. */
const SHELL_BINARIES = new Set(['bash', 'sh', 'dash', 'zsh', 'rbash']);

type Arg = { type: 'string'; value: string } | { type: 'fd'; path: string } | { type: 'array'; values: string[] } | { type: 'other'; text: string };

const decode = (hex: string) => Buffer.from(hex.replace(/\\x/g, ''), 'hex').toString('latin1');

/** Split strace's argument text at top-level commas into typed arguments. */
function parseArgs(text: string): Arg[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') depth--;
    else if (c === ',' && depth === 0) { parts.push(text.slice(start, i).trim()); start = i + 1; }
  }
  parts.push(text.slice(start).trim());
  return parts.map((part): Arg => {
    let m = /^"((?:\\x[0-9a-f]{2})*)"(\.\.\.)?$/.exec(part);
    if (m) return { type: 'string', value: decode(m[1]!) };
    m = /^(?:AT_FDCWD|-?\d+)<((?:\\x[0-9a-f]{2})*)>$/.exec(part);
    if (m) return { type: 'fd', path: decode(m[1]!) };
    if (part.startsWith('[')) return { type: 'array', values: [...part.matchAll(/"((?:\\x[0-9a-f]{2})*)"/g)].map((x) => decode(x[1]!)) };
    return { type: 'other', text: part };
  });
}

const ignoredPath = (path: string) =>
  path === '/dev' || path.startsWith('/dev/') || path.startsWith('/proc/') || ORACLE_DIRS.some((dir) => path === dir || path.startsWith(`${dir}/`));
const inSeed = (path: string) => path === WORKSPACE || path.startsWith(`${WORKSPACE}/`) || path === HOME || path.startsWith(`${HOME}/`);

/** One completed system call of one process: [pid, `name(args) = result`]. */
export type TraceEvent = readonly [number, string];

/**
 * Split the trace of a whole batch into the events of each line: a line's process tree starts at
 * the exec of the shell whose last argument is `oracle-line-N`; every process cloned from it
 * (whatever order strace printed the clone and the child's calls in) belongs to line N.
 */
export function splitBatchTrace(text: string, count: number): TraceEvent[][] {
  const events: [number, string][] = [];
  const pending = new Map<number, string>();
  for (const raw of text.split('\n')) {
    const m = /^(\d+)\s+(.*)$/.exec(raw);
    if (!m) continue;
    const pid = Number(m[1]);
    let rest = m[2]!;
    if (rest.startsWith('---') || rest.startsWith('+++')) continue;
    if (rest.endsWith('<unfinished ...>')) { pending.set(pid, rest.slice(0, -'<unfinished ...>'.length)); continue; }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(rest);
    if (resumed) { rest = (pending.get(pid) ?? '') + resumed[1]!; pending.delete(pid); }
    events.push([pid, rest]);
  }
  const parent = new Map<number, number>();
  const root = new Map<number, number>();
  for (const [pid, call] of events) {
    const clone = /^(?:clone3?|v?fork)\(.*\)\s+=\s+(\d+)/.exec(call);
    if (clone) parent.set(Number(clone[1]), pid);
    else if (/^execve\("((?:\\x[0-9a-f]{2})*)"/.test(call) && /\/(bash|zsh)$/.test(decode(/^execve\("((?:\\x[0-9a-f]{2})*)"/.exec(call)![1]!))) {
      const marker = /, "((?:\\x[0-9a-f]{2})*)"\], \[/.exec(call);
      const line = marker ? /^oracle-line-(\d+)$/.exec(decode(marker[1]!)) : null;
      if (line && !root.has(pid)) root.set(pid, Number(line[1]));
    }
  }
  const lineOf = (pid: number): number | undefined => {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && hops < 10_000; p = parent.get(p), hops++) {
      const line = root.get(p);
      if (line !== undefined) return line;
    }
    return undefined;
  };
  const out: TraceEvent[][] = Array.from({ length: count }, () => []);
  for (const event of events) {
    const line = lineOf(event[0]);
    if (line !== undefined && line < count) out[line]!.push(event);
  }
  return out;
}

export function parseTrace(events: readonly TraceEvent[]): Observed {
  const execs: string[][] = [];
  const writes = new Map<string, FileAccess>();
  const reads = new Map<string, FileAccess>();
  const cwd = new Map<number, string>();

  for (const [pid, line] of events) {
    const m = /^(\w+)\((.*)\)\s+=\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, call, argText, result] = m as unknown as [string, string, string, string];
    const args = parseArgs(argText);
    const ok = !result.startsWith('-1');
    const dirOf = (arg: Arg | undefined) => (arg?.type === 'fd' ? arg.path : cwd.get(pid) ?? WORKSPACE);
    const fdcwd = /AT_FDCWD<((?:\\x[0-9a-f]{2})*)>/.exec(argText);
    if (fdcwd) cwd.set(pid, decode(fdcwd[1]!));
    const returned = /^\d+<((?:\\x[0-9a-f]{2})*)>/.exec(result);
    const access = (pathArg: Arg | undefined, dir: string, into: Map<string, FileAccess>, useReturned: boolean) => {
      if (pathArg?.type !== 'string') return;
      const named = pathArg.value.startsWith('/') ? pathArg.value : `${dir}/${pathArg.value}`;
      const path = useReturned && returned ? decode(returned[1]!) : physical(named);
      if (ignoredPath(path) || ignoredPath(posix.normalize(named))) return;
      if (into === reads && !inSeed(path) && !inSeed(posix.normalize(named))) return;
      into.set(path, { path, named });
    };
    switch (call) {
      case 'clone': case 'clone3': case 'fork': case 'vfork': {
        const child = Number(result);
        if (Number.isInteger(child) && child > 0) cwd.set(child, cwd.get(pid) ?? WORKSPACE);
        break;
      }
      case 'chdir':
        if (ok && args[0]?.type === 'string') cwd.set(pid, physical(args[0].value, cwd.get(pid) ?? WORKSPACE));
        break;
      case 'fchdir':
        if (ok && args[0]?.type === 'fd') cwd.set(pid, args[0].path);
        break;
      case 'execve': case 'execveat': {
        const [pathArg, argvArg] = call === 'execve' ? [args[0], args[1]] : [args[1], args[2]];
        if (pathArg?.type !== 'string' || argvArg?.type !== 'array') break;
        const binary = posix.basename(pathArg.value);
        if (pathArg.value === NOT_FOUND) execs.push(argvArg.values.slice(1));
        else if (!SHELL_BINARIES.has(binary)) execs.push(argvArg.values);
        break;
      }
      case 'open': case 'openat': case 'openat2': case 'creat': {
        const at = call === 'open' || call === 'creat' ? 0 : 1;
        const flags = call === 'creat' ? 'O_CREAT' : (args[at + 1]?.type === 'other' ? (args[at + 1] as { text: string }).text : '');
        const dir = at === 1 ? dirOf(args[0]) : cwd.get(pid) ?? WORKSPACE;
        if (/O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/.test(flags)) access(args[at], dir, writes, true);
        else if (!/O_DIRECTORY|O_PATH/.test(flags)) access(args[at], dir, reads, true);
        break;
      }
      case 'rename': case 'link': case 'symlink':
        if (call === 'rename') access(args[0], cwd.get(pid) ?? WORKSPACE, writes, false);
        access(args[1], cwd.get(pid) ?? WORKSPACE, writes, false);
        break;
      case 'renameat': case 'renameat2': case 'linkat':
        if (call !== 'linkat') access(args[1], dirOf(args[0]), writes, false);
        access(args[3], dirOf(args[2]), writes, false);
        break;
      case 'symlinkat':
        access(args[2], dirOf(args[1]), writes, false);
        break;
      case 'unlink': case 'rmdir': case 'mkdir': case 'truncate': case 'mknod':
        access(args[0], cwd.get(pid) ?? WORKSPACE, writes, false);
        break;
      case 'unlinkat': case 'mkdirat': case 'mknodat':
        access(args[1], dirOf(args[0]), writes, false);
        break;
      default:
        break;
    }
  }
  const seen = new Set<string>();
  const unique = execs.filter((argv) => {
    const key = argv.join('\0');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { execs: unique, writes: [...writes.values()], reads: [...reads.values()] };
}
