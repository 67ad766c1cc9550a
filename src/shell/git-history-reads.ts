/**
 * Which commits' trees a git command may print file content from, as patches: `git log -p` (every
 * commit it walks), `git show` (a commit's diff against its parents, printed by default), `git diff
 * A B` (both trees). Pure: the words only; git-history-lister.ts reads the trees. Fail closed by
 * construction: `log` and `show` are taken to print patches unless every option is one known not
 * to (verified with git 2.39: `--binary` alone makes `git log` print them; `--oneline` and
 * `--format` do not stop `git show`); `diff` with revisions likewise. A revision's parent steps
 * (`X~2`, `X^2`) are followed exactly; any other suffix widens it to all of X's ancestors; reflog
 * entries, `:/re`, `--all` and such take commits from elsewhere: unknown. Pathspecs are ignored
 * (more is read than git prints: over-denial only).
 */
import { dotsOutsideBraces, gitGlobalOptions } from './git-command-line.js';
import { colonOutsideBraces } from './git-file-arguments.js';

export interface HistoryRevision {
  /** A name to resolve (ref, id, describe output). */
  readonly name: string;
  /** Parent numbers followed from it (`~2` is [1, 1], `^2` is [2]); undefined: any of its ancestors. */
  readonly steps: readonly number[] | undefined;
  /** Whose trees: the commit's, its and its parents', or every ancestor's. */
  readonly reach: 'self' | 'parents' | 'ancestors';
  /** HEAD, read only when no other word names an object: git takes such words as paths (`git log -p src`). */
  readonly unlessOthersFound?: true;
}

export interface HistoryReads {
  readonly subcommand: string;
  /** The directory git starts in: the command's, moved by `-C`. */
  readonly directory: string;
  readonly revisions: readonly HistoryRevision[];
  /**
   * `git log -N`: parent steps from each revision within which lie the trees its patches read. git
   * prints a commit only after a child it reached it from, so the k-th printed is at most k-1 steps
   * from a start, and its patch reads its parents' trees; filters (`--author`, `-S`…) and paths,
   * after which printed commits are not the first walked, void it (undefined).
   */
  readonly depth?: number;
  /** `git diff` with fewer than two trees compares the index: staged files, which may be in no commit. */
  readonly readsIndex: boolean;
  readonly unknown: readonly string[];
}

const REACH: Readonly<Record<string, HistoryRevision['reach']>> = { log: 'ancestors', show: 'parents', diff: 'self' };

/** Options that stop a patch (`git show --stat`, `git diff --name-only`). */
const NO_PATCH = /^(-s|--no-patch|--stat(=.*)?|--shortstat|--numstat|--name-only|--name-status|--raw|--summary|--dirstat(=.*)?|--compact-summary)$/;
/** Options that neither print content nor change which commits are read. */
const NEUTRAL = /^(--oneline|--graph|--decorate(=.*)?|--no-decorate|--abbrev-commit|--no-abbrev-commit|--abbrev(=\d+)?|--format=.*|--pretty(=.*)?|--date=.*|--relative-date|-n\d*|-\d+|--max-count=\d+|--skip=\d+|--reverse|--no-merges|--merges|--first-parent|--(author|committer|grep|since|until|after|before)=.*|-i|--regexp-ignore-case|--all-match|--invert-grep|--no-color|--color(=\w+)?|--(topo|date|author-date)-order|--left-right|--parents|--children|--no-renames|--follow|-M|--find-renames|--cached|--staged|--end-of-options|--not)$/;
/** Options that add every ref, reflog entry, index entry or stdin line as revisions. */
/** `git log` options under which the printed commits are the first ones walked (no filter). */
const UNFILTERED = /^(-p|-u|--patch|--patch-with-stat|--patch-with-raw|--binary|--full-index|--no-color|--color(=\w+)?|--stat(=.*)?|--shortstat|--numstat|--name-only|--name-status|--raw|--summary|--oneline|--format=.*|--pretty(=.*)?|--graph|--decorate(=.*)?|--no-decorate|--abbrev-commit|--date=.*|--relative-date|--reverse|--(topo|date|author-date)-order|--first-parent|-M|--find-renames|--no-renames|--parents|--children)$/;
const PSEUDO_REVISIONS = /^--(all|branches|tags|remotes|glob|exclude|reflog|alternate-refs|indexed-objects|stdin|bisect|walk-reflogs)(=|$)|^-g$/;

export function gitHistoryReads(argv: readonly string[], cwd: string): HistoryReads | undefined {
  const { directory, subcommandAt: i, unknown: repositoryUnknown } = gitGlobalOptions(argv, cwd);
  const unknown = [...repositoryUnknown];
  const subcommand = argv[i];
  if (subcommand === undefined || REACH[subcommand] === undefined) return undefined;
  let reach = REACH[subcommand]!;
  const words: string[] = [];
  let patchStopped = false;
  let otherOption = false;
  let endOfOptions = false;
  let count: number | undefined;
  let skip = 0;
  let filtered = false;
  const rest = argv.slice(i + 1);
  for (let w = 0; w < rest.length; w++) {
    const word = rest[w]!;
    if (word === '--') {
      if (w + 1 < rest.length) filtered = true;
      break;
    }
    if (endOfOptions || !word.startsWith('-') || word === '-') {
      words.push(word);
      continue;
    }
    const limit = /^(?:-|-n|--max-count=)(\d+)$/.exec(word) ?? ((word === '-n' || word === '--max-count') && /^\d+$/.test(rest[w + 1] ?? '') ? ['', rest[++w]!] : null);
    const skipped = /^--skip=(\d+)$/.exec(word);
    if (limit) count = Number(limit[1]);
    else if (skipped) skip = Number(skipped[1]);
    else if (!UNFILTERED.test(word)) filtered = true;
    if (limit || skipped) continue;
    if (word === '--end-of-options') endOfOptions = true;
    else if (NO_PATCH.test(word)) patchStopped = true;
    else if (PSEUDO_REVISIONS.test(word)) unknown.push(`git ${subcommand} ${word} takes commits from refs, reflogs, the index or stdin`);
    else if (word === '--merge-base') reach = 'ancestors';
    else if (!NEUTRAL.test(word)) otherOption = true;
  }
  // `git log` prints no patch by default, `show` and `diff` do; an option not known to be harmless may make one.
  const printsPatch = subcommand === 'log' ? otherOption : otherOption || !patchStopped;
  if (!printsPatch) return undefined;
  const revisions: HistoryRevision[] = [];
  for (const word of words) revisionsOf(word, reach, revisions, unknown);
  // No revision (words that name no object are paths): `log` and `show` read HEAD; `diff` compares the
  // index with the worktree or HEAD (its paths: readsIndex).
  revisions.push(revisions.length === 0 ? { name: 'HEAD', steps: [], reach } : { name: 'HEAD', steps: [], reach, unlessOthersFound: true });
  // The N-th commit printed is N-1 steps away at most; its patch reads its parents', one more.
  const depth = subcommand === 'log' && count !== undefined && !filtered ? count + skip : undefined;
  return { subcommand, directory, revisions, ...(depth === undefined ? {} : { depth }), readsIndex: subcommand === 'diff', unknown };
}

function revisionsOf(word: string, reach: HistoryRevision['reach'], out: HistoryRevision[], unknown: string[]): void {
  const colon = /^:[0-3]:/.test(word) ? 2 : colonOutsideBraces(word);
  if (colon === 0 && word.startsWith(':/')) {
    unknown.push(`${word} searches every commit reachable from a ref`);
    return;
  }
  // `:PATH`, `:N:PATH`: the index; `REV:PATH` a blob or tree in REV — `show` prints it whole (a path
  // read, git-file-arguments.ts), `diff` compares it: REV's tree.
  if (colon !== -1) {
    if (reach === 'self' && colon > 0 && !/^:[0-3]:/.test(word)) single(word.slice(0, colon), 'self', out, unknown);
    return;
  }
  const positive = word.startsWith('^') ? word.slice(1) : word;
  const family = /\^(!|@|-\d*)$/.exec(positive);
  if (family) {
    single(positive.slice(0, family.index), family[1] === '!' ? (reach === 'self' ? 'parents' : reach) : 'ancestors', out, unknown);
    return;
  }
  const dots = dotsOutsideBraces(positive);
  if (dots !== -1) {
    const symmetric = positive.startsWith('...', dots);
    const sides = [positive.slice(0, dots), positive.slice(dots + (symmetric ? 3 : 2))];
    // A range walks commits (log, show); `diff A...B` starts from a merge base, an ancestor.
    const rangeReach = reach === 'self' && !symmetric ? 'self' : 'ancestors';
    for (const side of sides) single(side === '' ? 'HEAD' : side, rangeReach, out, unknown);
    return;
  }
  single(positive, reach, out, unknown);
}

function single(text: string, reach: HistoryRevision['reach'], out: HistoryRevision[], unknown: string[]): void {
  if (text.includes('@{')) {
    unknown.push(`${text} names a reflog entry or another branch, which may be a commit out of the history`);
    return;
  }
  const end = text.search(/[~^]/);
  const name = end === -1 ? text : text.slice(0, end);
  if (name === '') return;
  let steps: number[] | undefined = [];
  for (let rest = end === -1 ? '' : text.slice(end); rest !== '';) {
    const step = /^(~|\^)(\d*)/.exec(rest);
    const peel = /^\^\{(commit|tree|)\}/.exec(rest);
    if (peel) rest = rest.slice(peel[0].length);
    else if (step && !rest.startsWith('^{')) {
      const count = step[2] === '' ? 1 : Number(step[2]);
      if (step[1] === '~') for (let k = 0; k < count && steps.length <= 1000; k++) steps.push(1);
      else if (count > 0) steps.push(count);
      rest = rest.slice(step[0].length);
    } else {
      // `^{/re}` and other peels: somewhere among the ancestors (a blob or tag peel prints no patch).
      steps = undefined;
      break;
    }
  }
  out.push({ name: name === '@' ? 'HEAD' : name, steps, reach: steps === undefined ? 'ancestors' : reach });
}
