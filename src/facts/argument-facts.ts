/**
 * Path facts from a shell analysis: redirect targets and the file arguments the analysis modelled
 * (Redirections whose operator is a program), then deny-only facts for the arguments of programs
 * whose argument roles are not modelled: each such word that names an existing file may be read,
 * so deny rules see it (`python3 -c pass .env`), while it never needs an allow.
 */
import type { Access, PathOrigin } from '../core/facts.js';
import { hasCompleteArgumentRoles } from '../shell/file-arguments.js';
import type { CommandAnalysis, SimpleCommand } from '../shell/types.js';

/** Whether an absolute path names an existing file, directory or link (injected: real fs, or a fake in tests). */
export type FileExists = (absolutePath: string) => boolean;

export interface ShellPathFact {
  /** Absolute (the analysis resolved it against the cwd in force). */
  readonly path: string;
  readonly access: Access;
  readonly origin: PathOrigin;
  readonly flags: { readonly glob?: true; readonly denyOnly?: true; readonly named?: true };
}

/** Existence checks per call; past it the call is unresolvable (padding must not hide a file). */
export const MAX_EXISTENCE_CHECKS = 256;
const MAX_PATH_LENGTH = 4096;

export interface ShellPathFacts {
  readonly facts: readonly ShellPathFact[];
  readonly unresolvable: readonly string[];
}

export function shellPathFacts(analysis: CommandAnalysis, fileExists: FileExists): ShellPathFacts {
  const { base, candidates, overflow } = pathCandidatesOf(analysis);
  let facts: ShellPathFact[] | undefined;
  // The file system is asked every time: the agent may create a file between two requests.
  for (let i = 0; i < candidates.length; i++) {
    const path = candidates[i]!;
    if (fileExists(path)) (facts ??= base.slice()).push({ path, access: 'read', origin: 'argument', flags: DENY_ONLY });
  }
  return { facts: facts ?? base, unresolvable: overflow ? [`more than ${MAX_EXISTENCE_CHECKS} arguments of programs whose file arguments are not modelled`] : NONE };
}

const NONE: readonly never[] = Object.freeze([]);

const DENY_ONLY = Object.freeze({ denyOnly: true as const });

interface PathCandidates {
  /** Facts from the analysis' redirections: deny-only ones last (beside an equal fact every rule sees, one only deny rules see adds nothing). */
  readonly base: readonly ShellPathFact[];
  /** Absolute paths (`..` kept: the kernel applies it after symlinks) of words of unmodelled programs that may name a file. */
  readonly candidates: readonly string[];
  readonly overflow: boolean;
}

/**
 * What depends only on the analysis: remembered for the last few cached (frozen) ones, which come
 * back — compared by identity in a small ring (a WeakMap entry for every parsed line, most of them
 * seen once, costs more in garbage collection than it saves).
 */
const RECENT = 8;
const recentAnalyses: (CommandAnalysis | undefined)[] = new Array<CommandAnalysis | undefined>(RECENT).fill(undefined);
const recentCandidates: (PathCandidates | undefined)[] = new Array<PathCandidates | undefined>(RECENT).fill(undefined);
let nextSlot = 0;

function pathCandidatesOf(analysis: CommandAnalysis): PathCandidates {
  const frozen = Object.isFrozen(analysis);
  if (frozen) {
    for (let slot = 0; slot < RECENT; slot++) if (recentAnalyses[slot] === analysis) return recentCandidates[slot]!;
  }
  const all: readonly ShellPathFact[] = analysis.redirections.length === 0 ? NONE : analysis.redirections.map((r) => ({
    path: r.kernelPath ?? r.path,
    access: r.access,
    origin: isRedirectOperator(r.operator) ? 'redirect' : 'argument',
    flags: { ...(r.glob ? { glob: true } : {}), ...(r.denyOnly ? { denyOnly: true } : {}) },
  }));
  const base = all.length === 0 ? NONE : [...all.filter((fact) => !fact.flags.denyOnly), ...all.filter((fact) => fact.flags.denyOnly)];
  const candidates: string[] = [];
  let overflow = false;
  const commands = analysis.commands;
  for (let c = 0; c < commands.length; c++) {
    const command = commands[c]!;
    if (overflow || hasCompleteArgumentRoles(command.program)) continue;
    for (const candidate of candidatesOf(command)) {
      if (candidates.length >= MAX_EXISTENCE_CHECKS) {
        overflow = true;
        break;
      }
      candidates.push(candidate.startsWith('/') ? candidate : `${command.cwd}/${candidate}`);
    }
  }
  const result = { base, candidates, overflow };
  if (frozen) {
    recentAnalyses[nextSlot] = analysis;
    recentCandidates[nextSlot] = result;
    nextSlot = (nextSlot + 1) % RECENT;
  }
  return result;
}

/** `>`, `>>`, `<`, `&>`, `<>`, `>|`, `>&` …: a redirect; anything else is the program that opens the file. */
function isRedirectOperator(operator: string): boolean {
  return /^[<>&|]+$/.test(operator);
}

/**
 * The words of a command that may name a file: non-option arguments, the value of `--opt=VALUE`
 * and `key=VALUE`, the PATH of `REV:PATH`, and a program given by path. Words that cannot be a
 * path (empty, URLs, over-long, still holding an expansion) are skipped.
 */
function candidatesOf(command: SimpleCommand): string[] {
  // Distinct, in order of first appearance (most commands have few words: a list beats a Set).
  const argv = command.argv;
  const out: string[] = [];
  const seen = argv.length > 16 ? new Set<string>() : undefined;
  const program = argv[0];
  if (program?.includes('/')) addCandidate(out, seen, program);
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.startsWith('-')) {
      const equals = word.indexOf('=');
      if (equals !== -1) addCandidate(out, seen, word.slice(equals + 1));
      continue;
    }
    addCandidate(out, seen, word);
    const equals = word.indexOf('=');
    if (equals !== -1) addCandidate(out, seen, word.slice(equals + 1));
    const colon = word.indexOf(':');
    if (colon !== -1 && !word.includes('://')) addCandidate(out, seen, word.slice(colon + 1));
  }
  return out;
}

/** `word` added to `out` unless it cannot be a path or is there already (`seen` mirrors `out` for long commands). */
function addCandidate(out: string[], seen: Set<string> | undefined, word: string): void {
  if (!isPathLike(word) || (seen ? seen.has(word) : out.includes(word))) return;
  seen?.add(word);
  out.push(word);
}

function isPathLike(word: string): boolean {
  return word !== '' && word.length <= MAX_PATH_LENGTH && !word.includes('\n') && !word.includes('\0')
    && !word.includes('://') && !/[$`]/.test(word) && !word.startsWith('~');
}
