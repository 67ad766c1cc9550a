/**
 * `git show ID` / `git diff ID ID` print a blob named by its id (or by a tag naming it) whole: a
 * committed `.env` is read with no path in the line. Deny-only path facts cannot say which file a
 * blob holds, so a revision that names a blob — or may, as far as the repository can be read —
 * makes the call unresolvable; commits and trees (a listing of names) leave it as it was. The
 * repository is read through an injected resolver (platform/git-revision-resolver.ts); without
 * one, every such revision is unresolvable.
 */
import { gitPrintedRevisions, type RevisionBase } from '../shell/git-revisions.js';
import type { CommandAnalysis } from '../shell/types.js';

/** What a revision base names, tags peeled; 'absent' when git would find no such object (and fail). */
export type RevisionObject = 'commit' | 'tree' | 'blob' | 'absent' | { readonly unknown: string };

/** The object `base` names in the repository git would use when started in `directory` (absolute). */
export type GitRevisionResolver = (directory: string, base: RevisionBase) => RevisionObject;

const NONE: readonly string[] = Object.freeze([]);

/** Why the analysed line's git commands may print a blob (empty when none may). */
export function gitObjectUnresolvable(analysis: CommandAnalysis, resolve: GitRevisionResolver | undefined): readonly string[] {
  let reasons: string[] | undefined;
  const commands = analysis.commands;
  for (let c = 0; c < commands.length; c++) {
    const command = commands[c]!;
    if (command.program !== 'git') continue;
    const printed = gitPrintedRevisions(command.argv, command.cwd);
    if (printed === undefined) continue;
    for (const reason of printed.unknown) (reasons ??= []).push(reason);
    const shown = `git ${printed.subcommand}`;
    // `$X`, or words xargs / find -exec add (not in argv): any of them may be a blob's id.
    if (command.dynamicArguments) {
      (reasons ??= []).push(`${shown} with arguments known only at run time may print a blob`);
      continue;
    }
    for (const base of printed.bases) {
      const reason = baseReason(shown, base, resolve ? resolve(printed.directory, base) : { unknown: 'the repository cannot be read here' });
      if (reason !== undefined) (reasons ??= []).push(reason);
    }
  }
  return reasons ?? NONE;
}

function baseReason(shown: string, base: RevisionBase, object: RevisionObject): string | undefined {
  const name = base.reflog ? `${base.name}@{…}` : base.name;
  if (object === 'blob') return `${shown} ${name} prints a committed file's content whole, from which file is not known`;
  if (typeof object === 'object') return `${shown} ${name} may print a committed file's content: ${object.unknown}`;
  return undefined;
}
