/**
 * The objects `git show` and `git diff` print whole when they are blobs: `git show <blob-id>`
 * prints the blob, `git diff <blob> <blob>` / `git diff <blob> PATH` print its lines, a tag is
 * peeled to what it names. Pure: which revision words name an object whose type only the
 * repository knows (a name, an id, describe output, `^{}`/`^{object}`/`^{blob}`/`^{tag}`), read as
 * git's get_oid does; forms that are commits or trees by their syntax (`X~2`, `X^`, `X^{commit}`,
 * `X^{/re}`, `:/re`, `X^!`) need nothing. `REV:PATH` is a path read (git-file-arguments.ts).
 * `git log` walks commits and ignores blobs it is given (checked with git 2.39).
 */
import { dotsOutsideBraces, gitGlobalOptions } from './git-command-line.js';
import { colonOutsideBraces } from './git-file-arguments.js';

/** The base of a revision, before its suffixes: a name to resolve, or a ref's reflog (`NAME@{2}`). */
export interface RevisionBase {
  readonly name: string;
  readonly reflog: boolean;
}

export interface PrintedRevisions {
  readonly subcommand: string;
  /** The directory git starts in: the command's, moved by `-C`. */
  readonly directory: string;
  /** Bases whose peeled object git prints whole if it is a blob. */
  readonly bases: readonly RevisionBase[];
  /** Why what the command prints cannot be known from its words. */
  readonly unknown: readonly string[];
}

/** Subcommands that print a blob they are given by name (verified with git: show, diff). */
const PRINTING = new Set(['show', 'diff']);

/** Revision options that add every ref, reflog entry, index entry or stdin line as a revision (`git show --tags` shows a tagged blob). */
const PSEUDO_REVISIONS = /^--(all|branches|tags|remotes|glob|reflog|alternate-refs|indexed-objects|stdin|bisect)(=|$)/;

export function gitPrintedRevisions(argv: readonly string[], cwd: string): PrintedRevisions | undefined {
  const { directory, subcommandAt: i, unknown: repositoryUnknown } = gitGlobalOptions(argv, cwd);
  const unknown = [...repositoryUnknown];
  const subcommand = argv[i];
  if (subcommand === undefined || !PRINTING.has(subcommand)) return undefined;
  const bases: RevisionBase[] = [];
  let endOfOptions = false;
  for (const word of argv.slice(i + 1)) {
    if (word === '--') break;
    if (!endOfOptions && word === '--end-of-options') endOfOptions = true;
    else if (!endOfOptions && word.startsWith('-')) {
      if (PSEUDO_REVISIONS.test(word)) unknown.push(`git ${subcommand} ${word} takes revisions from refs, the index or stdin, which may be blobs`);
    } else revisionBases(word, bases, unknown);
  }
  return { subcommand, directory, bases, unknown };
}

/** The bases of one revision argument, as git's handle_revision_arg and get_oid read it. */
function revisionBases(text: string, bases: RevisionBase[], unknown: string[]): void {
  // `REV:PATH`, `:PATH`, `:N:PATH` read a path (modelled as such); `:/re` and `REV:` are a commit and a tree.
  if (colonOutsideBraces(text) !== -1) return;
  const positive = text.startsWith('^') ? text.slice(1) : text;
  // `X^!`, `X^@`, `X^-N`: commits and their parents.
  if (/\^(!|@|-\d*)$/.test(positive)) return;
  const dots = dotsOutsideBraces(positive);
  if (dots !== -1) {
    // git tries a range first and the whole word when its sides do not resolve: both readings are looked at.
    const end = positive.startsWith('...', dots) ? dots + 3 : dots + 2;
    for (const side of [positive.slice(0, dots), positive.slice(end)]) if (side !== '') singleRevision(side, bases, unknown);
  }
  singleRevision(positive, bases, unknown);
}

function singleRevision(text: string, bases: RevisionBase[], unknown: string[]): void {
  // `X~`, `X~3`, `X^`, `X^2`: ancestors, always commits.
  if (/[~^]\d*$/.test(text)) return;
  const peel = text.endsWith('}') ? text.lastIndexOf('^{') : -1;
  if (peel !== -1) {
    const type = text.slice(peel + 2, -1);
    // `^{}`, `^{tag}`, `^{object}`, `^{blob}`: the object before them (peeled, if it is a tag).
    if (['', 'tag', 'object', 'blob'].includes(type)) singleRevision(text.slice(0, peel), bases, unknown);
    // `^{commit}`, `^{tree}`, `^{/re}` are a commit or tree; another type name is an error.
    return;
  }
  const at = text.endsWith('}') ? text.lastIndexOf('@{') : -1;
  if (at !== -1) {
    const name = text.slice(0, at);
    const selector = text.slice(at + 2, -1);
    // `@{-1}`: the branch checked out before, a commit.
    if (name === '' && /^-\d+$/.test(selector)) return;
    if (/^(u|upstream|push)$/i.test(selector) || name.includes('@{')) {
      unknown.push(`${text} names a remote-tracking ref, which may hold another object than a commit`);
      return;
    }
    bases.push({ name, reflog: true });
    return;
  }
  if (text !== '') bases.push({ name: text, reflog: false });
}
