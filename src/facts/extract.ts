import { NO_WORKSPACE, type Access, type CallFacts, type PathFact, type PathOrigin, type ToolKind } from '../core/facts.js';
import type { CommandAnalysis } from '../shell/types.js';
import { shellPathFacts } from './argument-facts.js';
import { treeReadFacts } from './tree-facts.js';
import { gitObjectUnresolvable } from './git-object-facts.js';
import { gitHistoryReadFacts } from './git-history-facts.js';
import { inferKind } from './infer-kind.js';
import { isUnresolvablePath, lexicalOnly, resolveGlobPath, resolvePath, tidiedPath } from './paths.js';
import { analyzeShellCall, UNKNOWN_SESSION } from './shell-call.js';
import type { ToolCallState } from './tool-call.js';
import type { ExtractContext } from './context.js';

/** rawInput fields that hold one path, by the agents that use them. */
const SINGLE_PATH_FIELDS = ['file_path', 'path', 'notebook_path', 'filePath', 'absolute_path', 'target_file', 'dir_path', 'directory'];
/** A shell call's `dir_path` / `directory` is where its command runs (shell-call.ts), not a path it uses. */
const SHELL_CALL_PATH_FIELDS = SINGLE_PATH_FIELDS.filter((field) => field !== 'dir_path' && field !== 'directory');
const PATH_LIST_FIELDS = ['paths', 'file_paths'];
const URL_FIELDS = ['url', 'uri'];
const URL_LIST_FIELDS = ['urls'];

/** Turn a merged tool call into the facts rules see. Pure apart from the injected canonicalizer. */
export function extractFacts(call: ToolCallState, context: ExtractContext): CallFacts {
  const meta = call._meta ?? undefined;
  const claudeMeta = meta && typeof meta.claudeCode === 'object' && meta.claudeCode !== null ? meta.claudeCode as Record<string, unknown> : undefined;
  // claude-code-acp / claude-agent-acp: _meta.claudeCode.toolName; qwen-code: _meta.toolName.
  const tool = stringOr(call.name) ?? stringOr(claudeMeta?.toolName) ?? stringOr(meta?.toolName);
  const title = stringOr(call.title);
  const raw = isRecord(call.rawInput) ? call.rawInput : undefined;
  const kind = inferKind({ kind: call.kind, tool, title, rawInput: call.rawInput });
  const unresolvable: string[] = [];
  const paths: PathFact[] = [];
  // Created with the first path (most calls have none).
  let seen: Set<string> | undefined;
  const addPath = (rawPath: unknown, access: Access, origin: PathOrigin, cwd = context.workspace, flags: Pick<PathFact, 'glob' | 'denyOnly'> & { readonly named?: true } = NO_FLAGS) => {
    if (typeof rawPath !== 'string' || rawPath === '') return;
    if (rawPath.includes('\0')) {
      unresolvable.push(`a path with a NUL byte, which no file can have: ${JSON.stringify(rawPath)}`);
      return;
    }
    // A tool's own path may be tidied by the agent before use (paths.ts): both readings are facts.
    const tidied = origin === 'locations' || origin === 'diff' || origin === 'rawInput' ? tidiedPath(rawPath) : undefined;
    if (tidied !== undefined) addPath(tidied, access, origin, cwd, flags);
    if (cwd === NO_WORKSPACE && !rawPath.startsWith('/') && rawPath !== '~' && !rawPath.startsWith('~/')) {
      unresolvable.push(`${UNKNOWN_SESSION}: the relative path ${rawPath} has nothing to resolve against`);
      // Deny rules still see it, as if the session ran at the root (`**/.env` matches wherever it is).
      return addPath(rawPath, access, origin, '/', { ...flags, denyOnly: true });
    }
    const canonicalize = flags.named ? lexicalOnly : context.canonicalize;
    const resolved = flags.glob ? resolveGlobPath(rawPath, cwd, context.home, canonicalize) : resolvePath(rawPath, cwd, context.home, canonicalize);
    if (isUnresolvablePath(resolved)) {
      unresolvable.push(resolved.unresolvable);
      return;
    }
    const denyOnly = flags.denyOnly ? { denyOnly: true } : {};
    const add = (fact: PathFact) => {
      // A deny-only fact adds nothing beside an equal one every rule sees (those come first).
      const key = `${access}\0${fact.glob ? 'glob' : ''}\0${fact.path}`;
      seen ??= new Set();
      if (seen.has(key)) return;
      seen.add(key);
      paths.push(fact);
    };
    if (typeof resolved === 'string') return add({ path: resolved, access, origin, ...denyOnly });
    // The glob for files created meanwhile, and the files it matches now (a match may be a symlink).
    add({ path: resolved.pattern, access, origin, glob: true, ...(resolved.expanded ? { expanded: true } : {}), ...denyOnly });
    for (const path of resolved.expansions) add({ path, access, origin, ...denyOnly });
  };
  const accessForKind = defaultAccess(kind);
  // A command runs whatever kind the agent gives the call (codex labels `cat x` as a read).
  const shellCall = analyzeShellCall(call, kind, context);

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
    for (const field of shellCall ? SHELL_CALL_PATH_FIELDS : SINGLE_PATH_FIELDS) addPath(raw[field], accessForKind, 'rawInput');
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

  const shell: CommandAnalysis | undefined = shellCall?.analysis;
  const shellLine = shellCall?.line;
  if (kind === 'execute' && shellCall === undefined) unresolvable.push('execute call without a command to analyse');
  if (shellCall && shell) {
    // Index loops: these lists are often the shared frozen empty ones, over which for-of allocates.
    pushAll(unresolvable, shellCall.unresolvable);
    pushAll(unresolvable, shell.unresolvable);
    const found = shellPathFacts(shell, context.fileExists);
    pushAll(unresolvable, found.unresolvable);
    for (let i = 0; i < found.facts.length; i++) {
      const fact = found.facts[i]!;
      addPath(fact.path, fact.access, fact.origin, context.workspace, fact.flags);
    }
    const trees = treeReadFacts(shell, context.listTree);
    pushAll(unresolvable, trees.unresolvable);
    for (let i = 0; i < trees.facts.length; i++) {
      const fact = trees.facts[i]!;
      addPath(fact.path, fact.access, fact.origin, context.workspace, fact.flags);
    }
    pushAll(unresolvable, gitObjectUnresolvable(shell, context.resolveGitRevision));
    const history = gitHistoryReadFacts(shell, context.listGitHistory);
    pushAll(unresolvable, history.unresolvable);
    for (let i = 0; i < history.facts.length; i++) {
      const fact = history.facts[i]!;
      addPath(fact.path, fact.access, fact.origin, context.workspace, fact.flags);
    }
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

/** No flags (shared: flags are only read). */
const NO_FLAGS: Pick<PathFact, 'glob' | 'denyOnly'> = Object.freeze({});

function pushAll(into: string[], items: readonly string[]): void {
  for (let i = 0; i < items.length; i++) into.push(items[i]!);
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

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
