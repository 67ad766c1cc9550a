import { posix } from 'node:path';
import type { Access, CallFacts, PathFact, PathOrigin, ToolKind } from '../core/facts.js';
import type { CommandAnalysis, ShellAnalyzer } from '../shell/types.js';
import { shellPathFacts, type FileExists } from './argument-facts.js';
import { inferKind } from './infer-kind.js';
import { resolvePath, type PathCanonicalizer } from './paths.js';
import type { ToolCallState } from './tool-call.js';

export interface ExtractContext {
  /** Session cwd; absolute. */
  readonly workspace: string;
  readonly home: string;
  readonly agent: string | undefined;
  readonly shell: ShellAnalyzer;
  readonly canonicalize: PathCanonicalizer;
  /** For deny-only facts: whether an argument of an unmodelled program names an existing file. */
  readonly fileExists: FileExists;
}

/** rawInput fields that hold one path, by the agents that use them. */
const SINGLE_PATH_FIELDS = ['file_path', 'path', 'notebook_path', 'filePath', 'absolute_path', 'target_file', 'dir_path', 'directory'];
const PATH_LIST_FIELDS = ['paths', 'file_paths'];
const URL_FIELDS = ['url', 'uri'];
const URL_LIST_FIELDS = ['urls'];
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash']);

/** Turn a merged tool call into the facts rules see. Pure apart from the injected canonicalizer. */
export function extractFacts(call: ToolCallState, context: ExtractContext): CallFacts {
  const meta = call._meta ?? undefined;
  const claudeMeta = meta && typeof meta.claudeCode === 'object' && meta.claudeCode !== null ? meta.claudeCode as Record<string, unknown> : undefined;
  const tool = stringOr(call.name) ?? stringOr(claudeMeta?.toolName);
  const title = stringOr(call.title);
  const raw = isRecord(call.rawInput) ? call.rawInput : undefined;
  const kind = inferKind({ kind: call.kind, tool, title, rawInput: call.rawInput });
  const unresolvable: string[] = [];
  const paths: PathFact[] = [];
  const seen = new Set<string>();
  const addPath = (rawPath: unknown, access: Access, origin: PathOrigin, cwd = context.workspace, flags: Pick<PathFact, 'glob' | 'denyOnly'> = {}) => {
    if (typeof rawPath !== 'string' || rawPath === '') return;
    const path = resolvePath(rawPath, cwd, context.home, context.canonicalize);
    const key = `${access}\0${flags.glob ? 'glob' : ''}\0${path}`; // a deny-only fact adds nothing to an equal one
    if (seen.has(key)) return;
    seen.add(key);
    paths.push({ path, access, origin, ...flags });
  };
  const accessForKind = defaultAccess(kind);

  for (const location of call.locations ?? []) {
    if (isRecord(location)) addPath(location.path, accessForKind, 'locations');
  }
  for (const item of call.content ?? []) {
    if (isRecord(item) && item.type === 'diff') {
      const diffKind = isRecord(item._meta) ? item._meta.kind : undefined;
      addPath(item.path, diffKind === 'delete' || kind === 'delete' ? 'delete' : 'write', 'diff');
    }
  }
  if (raw) {
    for (const field of SINGLE_PATH_FIELDS) addPath(raw[field], accessForKind, 'rawInput');
    for (const field of PATH_LIST_FIELDS) {
      const list = raw[field];
      if (Array.isArray(list)) for (const p of list) addPath(p, accessForKind, 'rawInput');
    }
    addCodexChanges(raw.changes, addPath);
    if (kind === 'move') {
      addPath(raw.source ?? raw.from, 'delete', 'rawInput');
      addPath(raw.destination ?? raw.to, 'write', 'rawInput');
    }
  }

  let shell: CommandAnalysis | undefined;
  // A command runs whatever kind the agent gives the call (codex labels `cat x` as a read).
  const shellLine = shellLineOf(raw?.command, raw?.args) ?? (kind === 'execute' ? shellLineFromTitle(title) : undefined);
  if (kind === 'execute' && shellLine === undefined) unresolvable.push('execute call without a command to analyse');
  if (shellLine !== undefined) {
    const cwd = typeof raw?.cwd === 'string' && posix.isAbsolute(raw.cwd) ? raw.cwd : context.workspace;
    shell = context.shell.analyze(shellLine, { cwd, home: context.home });
    unresolvable.push(...shell.unresolvable);
    const found = shellPathFacts(shell, context.fileExists);
    unresolvable.push(...found.unresolvable);
    for (const fact of found.facts) addPath(fact.path, fact.access, fact.origin, cwd, fact.flags);
  }
  if ((kind === 'edit' || kind === 'delete' || kind === 'move') && paths.length === 0) {
    unresolvable.push(`${kind} call without any path`);
  }

  const urls: string[] = [];
  if (raw) {
    for (const field of URL_FIELDS) if (typeof raw[field] === 'string') urls.push(raw[field] as string);
    for (const field of URL_LIST_FIELDS) {
      const list = raw[field];
      if (Array.isArray(list)) for (const u of list) if (typeof u === 'string') urls.push(u);
    }
  }

  return {
    kind, tool, title, agent: context.agent, workspace: context.workspace, paths,
    commands: shell?.commands ?? [], urls, input: call.rawInput, shellLine, shell, unresolvable,
  };
}

function defaultAccess(kind: ToolKind): Access {
  switch (kind) {
    case 'read': case 'search': case 'fetch': case 'think': return 'read';
    case 'delete': return 'delete';
    // Unknown kinds are treated as writes: a deny on writes then still applies, an allow on reads does not.
    case 'edit': case 'move': case 'execute': case 'switch_mode': case 'other': return 'write';
  }
}

/** codex's apply_patch input: `changes: { "/abs/path": { type: add|update|delete, move_path? } }`. */
function addCodexChanges(changes: unknown, addPath: (p: unknown, access: Access, origin: PathOrigin) => void): void {
  if (!isRecord(changes)) return;
  for (const [path, change] of Object.entries(changes)) {
    const type = isRecord(change) ? change.type : undefined;
    addPath(path, type === 'delete' ? 'delete' : 'write', 'rawInput');
    if (isRecord(change)) {
      addPath(change.move_path, 'write', 'rawInput');
      if (isRecord(change.update)) addPath(change.update.move_path, 'write', 'rawInput');
    }
  }
}

/** `command` as a string, or as argv (`["/bin/bash","-lc",SCRIPT]` unwrapped to SCRIPT). */
export function shellLineOf(command: unknown, args?: unknown): string | undefined {
  if (typeof command === 'string' && command.trim() !== '') {
    if (Array.isArray(args) && args.length > 0 && args.every((a) => typeof a === 'string')) {
      return [command, ...(args as string[])].map(quoteWord).join(' ');
    }
    return command;
  }
  if (Array.isArray(command) && command.length > 0 && command.every((a) => typeof a === 'string')) {
    const argv = command as string[];
    const program = posix.basename(argv[0]!);
    const flags = argv.slice(1, -1);
    if (SHELLS.has(program) && argv.length >= 3 && flags.every((f) => /^-[a-z]+$/.test(f)) && flags.some((f) => f.includes('c'))) {
      return argv[argv.length - 1];
    }
    return argv.map(quoteWord).join(' ');
  }
  return undefined;
}

/** gemini sends no rawInput: its execute title is the command. Old claude wraps it in backticks. */
function shellLineFromTitle(title: string | undefined): string | undefined {
  if (title === undefined || title.trim() === '') return undefined;
  const backticked = /^`([^`]*)`$/s.exec(title.trim());
  return backticked ? backticked[1] : title;
}

function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
