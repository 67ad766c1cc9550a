/**
 * The oracle's verdict: for a line the analysis calls resolved, every program the shell really
 * executed and every file it really wrote or read (under the workspace or home) must be among what
 * the analysis reported.
 *
 * "Among the reported", exactly:
 * - an exec is covered by a reported command whose argv equals it word for word (argv[0] compared
 *   by basename: `/bin/rm` and `rm` are the same program for a rule); a word the analysis keeps as
 *   written because it is only known at run time (`$X`, `` `…` ``, a glob, find's `{}`) stands for
 *   any number of real words (glob words: words matching the glob, or the glob itself); a process
 *   substitution `<(…)` stands for the /dev/fd path bash passes; xargs' appended words are allowed;
 * - the exec of a wrapper (`timeout 5 x`, `watch 'x'`) is covered by a reported command listing that
 *   wrapper in `wrappers`: the wrappers that run a program are real in the sandbox, so what they run
 *   is an exec of its own that must be covered word for word (a stub wrapper runs nothing);
 * - a written file is covered by a reported write redirection whose path resolves (like the kernel,
 *   over the seed) to the same file, or whose glob matches it; a read file by any reported
 *   redirection to it.
 */
import { posix } from 'node:path';
import type { CommandAnalysis, SimpleCommand } from '../../../src/shell/index.js';
import { physical } from './seed.js';
import type { FileAccess, Observed } from './trace.js';

const GLOB = /[*?[]/;
const DYNAMIC = /[$`]|\{\}/;

function globRegex(glob: string, wholePath: boolean): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') out += wholePath ? '[^/]*' : '.*';
    else if (c === '?') out += wholePath ? '[^/]' : '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) { out += '\\['; continue; }
      let body = glob.slice(i + 1, end);
      if (body.startsWith('!') || body.startsWith('^')) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

type Word = (real: string) => boolean;
interface PatternWord { readonly many: boolean; readonly matches: Word }

function patternOf(command: SimpleCommand): PatternWord[] {
  const words: PatternWord[] = command.argv.map((word, i) => {
    if (i === 0) return { many: false, matches: (real: string) => real === word || posix.basename(real) === posix.basename(word) };
    if (command.dynamicArguments && DYNAMIC.test(word)) return { many: true, matches: () => true };
    // A process substitution is a /dev/fd path to a pipe; its command is reported on its own.
    if (/^[<>]\(/.test(word)) return { many: false, matches: (real: string) => /^\/dev\/fd\/\d+$/.test(real) };
    if (GLOB.test(word)) {
      const regex = globRegex(word, false);
      return { many: true, matches: (real: string) => real === word || regex.test(real) };
    }
    return { many: false, matches: (real: string) => real === word };
  });
  // xargs appends the words it reads.
  if (command.dynamicArguments && command.wrappers.includes('xargs')) words.push({ many: true, matches: () => true });
  return words;
}

/** Does the pattern match all of `words`? (`many` words match zero or more words.) */
function matchesAll(pattern: readonly PatternWord[], words: readonly string[]): boolean {
  const memo = new Map<string, boolean>();
  const go = (p: number, w: number): boolean => {
    const key = `${p},${w}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (p === pattern.length) result = w === words.length;
    else if (pattern[p]!.many) result = go(p + 1, w) || (w < words.length && pattern[p]!.matches(words[w]!) && go(p, w + 1));
    else result = w < words.length && pattern[p]!.matches(words[w]!) && go(p + 1, w + 1);
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

export function execCovered(exec: readonly string[], commands: readonly SimpleCommand[]): boolean {
  return commands.some((command) => {
    const pattern = patternOf(command);
    if (matchesAll(pattern, exec)) return true;
    return command.wrappers.includes(posix.basename(exec[0] ?? ''));
  });
}

function fileCovered(file: FileAccess, analysis: CommandAnalysis, access: 'read' | 'write'): boolean {
  return analysis.redirections.some((redirection) => {
    if (access === 'write' && redirection.access !== 'write') return false;
    if (redirection.glob || GLOB.test(redirection.path)) {
      const regex = globRegex(redirection.path, true);
      if (regex.test(file.path) || regex.test(posix.normalize(file.named))) return true;
    }
    // The path as reported, resolved on the host copy of the seed; or that very path, when the
    // write happened while a link in it did not resolve (a concurrent part of the line changed it).
    const reported = redirection.kernelPath ?? redirection.path;
    return physical(reported) === file.path || reported === file.path;
  });
}

export interface Mismatch {
  readonly kind: 'exec' | 'write' | 'read';
  readonly what: string;
}

export function compare(analysis: CommandAnalysis, observed: Observed): Mismatch[] {
  const mismatches: Mismatch[] = [];
  for (const exec of observed.execs) {
    if (!execCovered(exec, analysis.commands)) mismatches.push({ kind: 'exec', what: JSON.stringify(exec) });
  }
  for (const file of observed.writes) if (!fileCovered(file, analysis, 'write')) mismatches.push({ kind: 'write', what: file.path });
  for (const file of observed.reads) if (!fileCovered(file, analysis, 'read')) mismatches.push({ kind: 'read', what: file.path });
  return mismatches;
}
