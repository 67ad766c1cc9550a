/**
 * `cd`, `pushd`, `popd`: they change the directory later commands and redirects run in.
 * They are not reported as commands themselves (their only effect is the cwd, which we track), so
 * `cd /w && npm test` needs no rule for `cd`. Anything we cannot follow (`cd -`, `cd $X`, `pushd +1`,
 * `popd` past what this line pushed) makes the cwd unknown, and with it every later command.
 */
import { forgetCwd, type Scope } from './collector.js';
import { resolvePath } from './paths.js';
import type { Word } from './words.js';

const DIRECTORY_BUILTINS: ReadonlySet<string> = new Set(['cd', 'pushd', 'popd', 'chdir']);

export function isDirectoryChange(program: string): boolean {
  return DIRECTORY_BUILTINS.has(program);
}

/** Applies the builtin `argv[0]` to `scope`. */
export function applyDirectoryChange(argv: readonly Word[], scope: Scope, home: string): void {
  const program = argv[0]?.text;
  const operands = operandsOf(argv);
  if (!operands) return forgetCwd(scope);
  if (program === 'popd') return popDirectory(operands, scope);
  if (program === 'pushd' && operands.length === 0) return forgetCwd(scope); // swaps the top two
  const target: Word = operands[0] ?? { text: home, dynamic: false, glob: false, tildeUnresolved: false, history: false };
  if (operands.length > 1 || !isStaticDirectory(target)) return forgetCwd(scope);
  if (program === 'pushd' && /^[+-]\d+$/.test(target.text)) return forgetCwd(scope); // rotates the stack
  // An absolute target is known wherever the shell was before.
  if (scope.cwd === undefined && !target.text.startsWith('/')) return;
  const next = resolvePath(scope.cwd ?? '/', target.text);
  if (program === 'pushd') {
    if (scope.cwd === undefined) scope.dirStack = undefined; // pushed an unknown directory
    else scope.dirStack?.push(scope.cwd);
  }
  scope.cwd = next;
  scope.lastKnownCwd = next;
}

function popDirectory(operands: readonly Word[], scope: Scope): void {
  const previous = operands.length === 0 ? scope.dirStack?.pop() : undefined;
  if (previous === undefined) return forgetCwd(scope);
  scope.cwd = previous;
  scope.lastKnownCwd = previous;
}

/** The operands after options (`-L`, `-P`, `-e`, `-@`, `-n`, `--`); undefined if any is unknown. */
function operandsOf(argv: readonly Word[]): Word[] | undefined {
  const operands: Word[] = [];
  let optionsDone = false;
  for (const word of argv.slice(1)) {
    if (word.dynamic) return undefined;
    if (!optionsDone && word.text === '--') optionsDone = true;
    else if (!optionsDone && /^-[LPe@]+$/.test(word.text)) continue;
    else if (!optionsDone && word.text === '-n') return undefined; // pushd/popd -n: stack only
    else if (!optionsDone && word.text === '-') return undefined; // cd -: OLDPWD
    else operands.push(word);
  }
  return operands;
}

function isStaticDirectory(word: Word): boolean {
  return !word.dynamic && !word.glob && !word.tildeUnresolved && word.text !== '';
}
