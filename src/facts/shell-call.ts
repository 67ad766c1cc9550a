/**
 * The shell line of a tool call and the directory it starts in. Agents name that directory in
 * different ways: codex `rawInput.cwd` (its exec event; relative ones are taken against the session
 * cwd) or `rawInput.workdir` (its shell tools' arguments), qwen-code `rawInput.directory`, gemini-cli
 * `rawInput.dir_path` — which its permission request does not carry: there the directory shows only
 * in the explanation `[in DIR] (description)` of the content. A directory that cannot be read with
 * certainty leaves the line's start unknown: whatever it does relative to it is unresolvable.
 */
import { posix } from 'node:path';
import { NO_WORKSPACE } from '../core/facts.js';
import type { CommandAnalysis, ShellContext } from '../shell/types.js';
import { lineReadings } from './agent-shell-lines.js';
import type { ExtractContext } from './context.js';
import { isUnresolvablePath } from './paths.js';
import { DIRECTORY_FIELDS, type ToolCallState } from './tool-call.js';

export interface ShellCall {
  readonly line: string;
  /** The absolute directories the line may start in (one, unless the session's shell may be in several); null when not known. */
  readonly cwds: readonly string[] | null;
  /** The analysis from every start, merged: deny rules see what any start would do, allow rules must allow all of it. */
  readonly analysis: CommandAnalysis;
  /** Why the start directory is not known (empty when it is). */
  readonly unresolvable: readonly string[];
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash']);
const GEMINI_AGENT = /gemini/i;
const CLAUDE_AGENT = /claude/i;

/** gemini-cli's explanation of a shell call when the model gave no directory. */
const GEMINI_DEFAULT_DIRECTORY = '[current working directory ';
const GEMINI_DIRECTORY = '[in ';

/** The call's shell line analysed from where it starts; undefined when the call has no command. */
export function analyzeShellCall(call: ToolCallState, kind: string, context: ExtractContext): ShellCall | undefined {
  const raw = isRecord(call.rawInput) ? call.rawInput : undefined;
  const fromInput = shellLineOf(raw?.command, raw?.args);
  // gemini sends no rawInput: its execute title is the command, exactly as bash gets it.
  const fromTitle = fromInput === undefined && kind === 'execute' && typeof call.title === 'string' && call.title.trim() !== '' ? call.title : undefined;
  const line = fromInput ?? fromTitle;
  if (line === undefined) return undefined;
  const start = startDirectory(call, fromTitle !== undefined, context);
  const cwds = start.type === 'known' ? start.cwds : null;
  // What the agent may really run (agent-shell-lines.ts); gemini-cli's shape: the command in the title.
  const agent = context.agent;
  const readings = lineReadings(line, {
    gemini: fromTitle !== undefined || agent === undefined || GEMINI_AGENT.test(agent), claude: agent === undefined || CLAUDE_AGENT.test(agent),
  });
  const analyze = (shellContext: ShellContext) => readings.lines.length === 1
    ? context.shell.analyze(line, shellContext)
    : union(readings.lines.map((reading) => context.shell.analyze(reading, shellContext)));
  const analysis = cwds === null
    // Without a workspace, `/` only stands in for deny rules: nothing before an absolute `cd` is allowed.
    ? analyze({ cwd: context.workspace === NO_WORKSPACE ? '/' : context.workspace, home: context.home, cwdUnknown: true })
    : cwds.length === 1 ? analyze({ cwd: cwds[0]!, home: context.home })
      : mergeAnalyses(cwds.map((cwd) => analyze({ cwd, home: context.home })));
  // The walker marks whatever runs before an absolute `cd` unresolvable: if nothing is, the start did not matter.
  const startMattered = start.type === 'unknown' && analysis.unresolvable.length > 0;
  const unresolvable = startMattered ? [start.reason, ...readings.unresolvable] : readings.unresolvable;
  return { line, cwds, analysis, unresolvable };
}

/** Where the line leaves the shell from each of its starts, in their order (`ShellCall.cwds`); null where not known. */
export function finalCwdsOf(analysis: CommandAnalysis): readonly (string | null)[] {
  return mergedFinals.get(analysis) ?? [analysis.finalCwd ?? null];
}

const mergedFinals = new WeakMap<CommandAnalysis, readonly (string | null)[]>();

/** Analyses from several starts (one each, in `ShellCall.cwds` order) merged, each start's final directory remembered. */
function mergeAnalyses(analyses: readonly CommandAnalysis[]): CommandAnalysis {
  const merged = union(analyses);
  mergedFinals.set(merged, analyses.map((a) => a.finalCwd ?? null));
  return merged;
}

/** Everything any of the analyses runs, redirects or cannot resolve; a final directory only if all agree. */
function union(analyses: readonly CommandAnalysis[]): CommandAnalysis {
  const commands = new Map<string, CommandAnalysis['commands'][number]>();
  const redirections = new Map<string, CommandAnalysis['redirections'][number]>();
  const unresolvable = new Set<string>();
  for (const analysis of analyses) {
    for (const c of analysis.commands) commands.set(`${c.cwd}\0${c.text}\0${c.argv.join('\0')}`, c);
    for (const r of analysis.redirections) redirections.set(`${r.access}\0${r.operator}\0${r.glob === true}\0${JSON.stringify(r.recursive)}\0${r.path}`, r);
    for (const reason of analysis.unresolvable) unresolvable.add(reason);
  }
  const finals = analyses.map((a) => a.finalCwd ?? null);
  return {
    commands: [...commands.values()], redirections: [...redirections.values()], unresolvable: [...unresolvable],
    finalCwd: finals.every((f) => f === finals[0]) ? finals[0] : null,
  };
}

type Start = { readonly type: 'known'; readonly cwds: readonly string[] } | { readonly type: 'unknown'; readonly reason: string };

function startDirectory(call: ToolCallState, lineFromTitle: boolean, context: ExtractContext): Start {
  const hints = call.directoryHints ?? hintsOf(call.rawInput);
  const explanation = lineFromTitle ? geminiExplanation(call.content) : NO_EXPLANATION;
  if (explanation.type === 'ambiguous') return unknown('its directory ([in …] in the explanation) cannot be read with certainty');
  if (explanation.type === 'default' && hints.length > 0) return unknown('the explanation and a parameter disagree on its directory');
  const given = explanation.type === 'directory' ? [...hints, explanation.directory] : hints;
  if (given.length > 0) {
    if (!given.every((hint): hint is string => typeof hint === 'string')) return unknown('a working-directory parameter that is not a path');
    if (context.workspace === NO_WORKSPACE && given.some((hint) => !hint.startsWith('/'))) return unknown(`${UNKNOWN_SESSION}, and a relative working directory is given`);
    const resolved = given.map((hint) => context.canonicalize(posix.resolve(context.workspace, hint)));
    if (resolved.some(isUnresolvablePath)) return unknown('its working directory cannot be resolved like the kernel would');
    const directories = new Set(resolved as string[]);
    if (directories.size > 1) return unknown(`two different working directories given (${[...directories].join(', ')})`);
    return { type: 'known', cwds: [...directories] };
  }
  if (context.workspace === NO_WORKSPACE && (explanation.type === 'default' || context.shellCwd === undefined || context.shellCwd === null || context.shellCwd.length === 0)) {
    return unknown(UNKNOWN_SESSION);
  }
  if (explanation.type === 'default') return inWorkspace(context.workspace);
  if (context.shellCwd === null) return unknown('an earlier command of this session moved its shell to a directory not known statically');
  if (context.shellCwd !== undefined && context.shellCwd.length > 0) return { type: 'known', cwds: context.shellCwd };
  // gemini-cli versions that show the directory nowhere in the request (or only inside the title).
  if (lineFromTitle && context.agent === 'gemini-cli') return unknown('gemini-cli did not say which directory the command runs in');
  return inWorkspace(context.workspace);
}

const NONE: readonly string[] = Object.freeze([]);
const NO_EXPLANATION: Explanation = Object.freeze({ type: 'none' });

/** The usual start, the workspace: one frozen value per workspace in a row (a session asks again and again). */
let lastWorkspaceStart: { readonly workspace: string; readonly start: Start } | undefined;
function inWorkspace(workspace: string): Start {
  if (lastWorkspaceStart?.workspace !== workspace) {
    lastWorkspaceStart = { workspace, start: Object.freeze({ type: 'known', cwds: Object.freeze([workspace]) }) };
  }
  return lastWorkspaceStart.start;
}

/** Why a session's workspace is unknown. */
export const UNKNOWN_SESSION = 'the session is unknown to the broker (no session/new, load or resume named it), so it has no workspace';

function unknown(why: string): Start {
  return { type: 'unknown', reason: `the shell's working directory is not known: ${why}` };
}

function hintsOf(rawInput: unknown): unknown[] {
  const hints: unknown[] = [];
  if (!isRecord(rawInput)) return hints;
  for (const field of DIRECTORY_FIELDS) {
    const value = rawInput[field];
    if (value !== undefined && value !== null && value !== '') hints.push(value);
  }
  return hints;
}

type Explanation =
  | { readonly type: 'none' } | { readonly type: 'default' } | { readonly type: 'ambiguous' }
  | { readonly type: 'directory'; readonly directory: string };

/**
 * gemini-cli's shell explanation: `[in DIR]` or `[current working directory CWD]`, then ` (DESCRIPTION)`
 * if any, then ` [background]` if so. DIR and DESCRIPTION may hold `]`, `(` and `)`: DIR is read only
 * when exactly one `]` can end it.
 */
function geminiExplanation(content: readonly unknown[] | null | undefined): Explanation {
  const found: Explanation[] = [];
  for (const item of content ?? []) {
    const text = isRecord(item) && item.type === 'content' && isRecord(item.content) && item.content.type === 'text' ? item.content.text : undefined;
    if (typeof text !== 'string') continue;
    if (text.startsWith(GEMINI_DEFAULT_DIRECTORY)) found.push({ type: 'default' });
    else if (text.startsWith(GEMINI_DIRECTORY)) found.push(directoryIn(text));
  }
  if (found.length === 0) return { type: 'none' };
  const first = found[0]!;
  const same = found.every((e) => e.type === first.type && (e.type !== 'directory' || first.type !== 'directory' || e.directory === first.directory));
  return same ? first : { type: 'ambiguous' };
}

function directoryIn(text: string): Explanation {
  const candidates: string[] = [];
  for (let end = text.indexOf(']', GEMINI_DIRECTORY.length); end !== -1; end = text.indexOf(']', end + 1)) {
    const directory = text.slice(GEMINI_DIRECTORY.length, end);
    if (directory !== '' && isExplanationTail(text.slice(end + 1))) candidates.push(directory);
  }
  return candidates.length === 1 ? { type: 'directory', directory: candidates[0]! } : { type: 'ambiguous' };
}

function isExplanationTail(rest: string): boolean {
  const withoutBackground = rest.endsWith(' [background]') ? rest.slice(0, -' [background]'.length) : rest;
  return withoutBackground === '' || (withoutBackground.startsWith(' (') && withoutBackground.endsWith(')') && withoutBackground.length > 3);
}

/** `command` as a string, or as argv (`["/bin/bash","-lc",SCRIPT]` unwrapped to SCRIPT). */
function shellLineOf(command: unknown, args?: unknown): string | undefined {
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

function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
