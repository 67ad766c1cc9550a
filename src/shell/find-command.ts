/**
 * What a `find` command does beyond listing: `-exec/-execdir/-ok/-okdir CMD … ;|+` run commands,
 * `-delete` deletes, `-fprint*`/`-fls` write files.
 *
 * `-delete` is reported as a synthetic command `rm -r -f -- ROOT…` (wrappers `['find']`): it may
 * delete anything under the roots without asking, exactly what a rule for `rm -rf ROOT` is about.
 */
import type { Word } from './words.js';

export interface FindActions {
  readonly roots: readonly Word[];
  /** argv of each command run by -exec/-execdir/-ok/-okdir (with `{}` as written). */
  readonly executes: readonly (readonly Word[])[];
  readonly deletes: boolean;
  /** Files written by -fprint, -fprint0, -fprintf, -fls. */
  readonly writes: readonly Word[];
}

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const WRITE_ACTIONS = new Map([['-fprint', 1], ['-fprint0', 1], ['-fls', 1], ['-fprintf', 2]]);

/** Tests and options whose next word is their value (so a value is never taken for an action). */
const VALUED = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-regextype',
  '-lname', '-ilname', '-type', '-xtype', '-user', '-group', '-uid', '-gid', '-perm', '-size', '-links',
  '-inum', '-samefile', '-newer', '-anewer', '-cnewer', '-mtime', '-atime', '-ctime', '-mmin', '-amin',
  '-cmin', '-used', '-maxdepth', '-mindepth', '-fstype', '-context', '-printf', '-files0-from',
]);

/** `argv[0]` is find. */
export function findActions(argv: readonly Word[]): FindActions {
  let i = 1;
  // Leading options: -H -L -P, -D debugopts, -Olevel.
  while (i < argv.length && /^-([HLP]|D|O\d*)$/.test(argv[i]!.text)) i += argv[i]!.text === '-D' ? 2 : 1;
  const roots: Word[] = [];
  while (i < argv.length && !isExpressionStart(argv[i]!.text)) roots.push(argv[i++]!);
  const executes: Word[][] = [];
  const writes: Word[] = [];
  let deletes = false;
  while (i < argv.length) {
    const text = argv[i]!.text;
    if (EXEC_ACTIONS.has(text)) {
      // Ends at `;`, or at `+` right after `{}` (a `+` elsewhere is an argument: `chmod +x`).
      const end = argv.findIndex((word, at) => at > i && (word.text === ';' || (word.text === '+' && argv[at - 1]?.text === '{}')));
      const stop = end === -1 ? argv.length : end;
      executes.push(argv.slice(i + 1, stop));
      i = stop + 1;
      continue;
    }
    const writeValues = WRITE_ACTIONS.get(text);
    if (writeValues !== undefined) {
      const target = argv[i + 1];
      if (target) writes.push(target);
      i += 1 + writeValues;
      continue;
    }
    if (text === '-delete') deletes = true;
    i += VALUED.has(text) || /^-newer..$/.test(text) ? 2 : 1;
  }
  return { roots: roots.length > 0 ? roots : [literal('.')], executes, deletes, writes };
}

function isExpressionStart(text: string): boolean {
  return text.startsWith('-') || text === '(' || text === ')' || text === '!' || text === ',';
}

function literal(text: string): Word {
  return { text, dynamic: false, glob: false, tildeUnresolved: false, history: false };
}
