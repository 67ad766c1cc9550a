/**
 * `git log -p`, `git show COMMIT` and `git diff A B` print committed files' content as patches: a
 * `.env` committed once and deleted since is printed with no path in the line. Every path in the
 * trees those commands may read (shell/git-history-reads.ts) becomes a read only deny rules see, as
 * for recursive readers (tree-facts.ts): an allow never needs them. The trees are listed from `.git`
 * by an injected lister (platform/git-history-lister.ts); without one, past its limit or where the
 * repository cannot be read with certainty, the call is unresolvable.
 */
import { gitHistoryReads, type HistoryReads } from '../shell/git-history-reads.js';
import type { CommandAnalysis } from '../shell/types.js';
import type { ShellPathFact } from './argument-facts.js';

/**
 * Absolute paths of every file in the trees of the commits `reads.revisions` reach, under the
 * canonical directory of the repository git would use from `reads.directory` (ancestors at most `depth` parent steps away,
 * unless a word names no object: a path), and in its index when `readsIndex`; 'too-many' past
 * `limit` paths or the lister's own walk limits.
 */
export type GitHistoryLister = (reads: Pick<HistoryReads, 'directory' | 'revisions' | 'depth' | 'readsIndex'>, limit: number) => readonly string[] | 'too-many' | { readonly unknown: string };

/** Paths listed per call. */
const MAX_HISTORY_PATHS = 20_000;

/**
 * Names in git's trees, not files on disk: git prints the committed content whatever is at that
 * path now, so they are matched as named (under the repository's canonical directory), never
 * canonicalised one by one.
 */
const HISTORY_NAME = Object.freeze({ denyOnly: true as const, named: true as const });
const NONE: readonly never[] = Object.freeze([]);

export function gitHistoryReadFacts(analysis: CommandAnalysis, listHistory: GitHistoryLister | undefined): { readonly facts: readonly ShellPathFact[]; readonly unresolvable: readonly string[] } {
  let facts: ShellPathFact[] | undefined;
  let unresolvable: string[] | undefined;
  const commands = analysis.commands;
  for (let c = 0; c < commands.length; c++) {
    const command = commands[c]!;
    if (command.program !== 'git') continue;
    const reads = gitHistoryReads(command.argv, command.cwd);
    if (reads === undefined) continue;
    const shown = `git ${reads.subcommand}`;
    if (reads.unknown.length > 0) {
      for (const reason of reads.unknown) (unresolvable ??= []).push(`${shown} may print committed files' content: ${reason}`);
      continue;
    }
    // `$X`, or words xargs / find -exec add: any commit.
    if (command.dynamicArguments) {
      (unresolvable ??= []).push(`${shown} with arguments known only at run time may print any committed file's content`);
      continue;
    }
    if (!listHistory) {
      (unresolvable ??= []).push(`${shown} may print committed files' content, and the history cannot be read here`);
      continue;
    }
    const paths = listHistory(reads, MAX_HISTORY_PATHS);
    if (paths === 'too-many') (unresolvable ??= []).push(`${shown} may print the content of more committed files than are listed (${MAX_HISTORY_PATHS} paths)`);
    else if ('unknown' in paths) (unresolvable ??= []).push(`${shown} may print committed files' content: ${paths.unknown}`);
    else for (let k = 0; k < paths.length; k++) (facts ??= []).push({ path: paths[k]!, access: 'read', origin: 'argument', flags: HISTORY_NAME });
  }
  return { facts: facts ?? NONE, unresolvable: unresolvable ?? NONE };
}
