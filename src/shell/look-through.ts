/**
 * Deny-side look-through: a program we do not know to treat its arguments as data may run them as
 * a command (`foo --bar rm -rf /`, an unknown wrapper). For deny and ask rules, such an argv also
 * counts as each command that starts at one of its later words; never for allow rules.
 */
import { shapeOf } from './command-shape.js';
import { basename } from './paths.js';
import type { SimpleCommand } from './types.js';

/** Programs whose arguments are data (text, patterns, files, targets): never a command they run. */
const DATA_ARGUMENTS: ReadonlySet<string> = new Set([
  'echo', 'printf', 'cat', 'tac', 'nl', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ls', 'dir', 'head', 'tail', 'wc',
  'sort', 'uniq', 'cut', 'tr', 'paste', 'join', 'comm', 'diff', 'cmp', 'file', 'stat', 'du', 'df', 'basename',
  'dirname', 'realpath', 'readlink', 'pwd', 'which', 'type', 'whereis', 'man', 'info', 'help', 'date', 'touch',
  'mkdir', 'rmdir', 'cd', 'pushd', 'popd', 'test', '[', '[[', 'true', 'false', ':', 'jq', 'yq', 'less', 'more',
  'tee', 'od', 'xxd', 'hexdump', 'base64', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'shasum', 'column',
  'fold', 'fmt', 'rev', 'seq', 'sleep', 'printenv', 'id', 'whoami', 'hostname', 'uname', 'export', 'local',
  'declare', 'typeset', 'readonly', 'unset', 'read', 'set', 'shift', 'return', 'exit', 'kill', 'make', 'awk',
  'sed', 'find', 'tree',
]);

/** git subcommands that run commands given in their arguments (`git bisect run CMD`, `rebase -x`). */
const GIT_RUNNING: ReadonlySet<string> = new Set(['bisect', 'submodule', 'filter-branch', 'rebase', 'difftool', 'mergetool']);

/** Programs whose first argument is a subcommand name, never a command (`docker rm`, `npm exec`). */
const SUBCOMMAND_FIRST: ReadonlySet<string> = new Set([
  'docker', 'podman', 'kubectl', 'npm', 'pnpm', 'yarn', 'bun', 'cargo', 'go', 'pip', 'pip3', 'apt', 'apt-get',
  'brew', 'systemctl', 'gh', 'git', 'dotnet', 'helm', 'terraform', 'gcloud', 'aws', 'az', 'nix', 'deno', 'uv', 'poetry',
]);

/** Where in argv a looked-through command may start (indexes ≥ 1); empty for data programs. */
export function lookThroughStarts(command: SimpleCommand): readonly number[] {
  // Known at once (cheaper than remembering it) for most commands.
  if (command.argv.length < 2 || DATA_ARGUMENTS.has(command.program)) return NO_STARTS;
  // Analyses are frozen and come back from the cache: remember their answer.
  const frozen = Object.isFrozen(command) && Object.isFrozen(command.argv);
  const known = frozen ? remembered.get(command) : undefined;
  if (known) return known;
  const starts = computeStarts(command);
  // Frozen only when remembered (shared); a one-off answer is its caller's alone.
  if (frozen) remembered.set(command, starts === NO_STARTS ? starts : Object.freeze(starts));
  return starts;
}

const remembered = new WeakMap<SimpleCommand, readonly number[]>();

function computeStarts(command: SimpleCommand): readonly number[] {
  const { argv, program } = command;
  if (argv.length < 2) return NO_STARTS;
  if (DATA_ARGUMENTS.has(program)) return NO_STARTS;
  // Most git lines name no subcommand that runs commands: known without parsing git's options.
  if (program === 'git' && (!argv.some((word) => GIT_RUNNING.has(word)) || !GIT_RUNNING.has(shapeOf('git', argv.slice(1)).positionals[0] ?? ''))) return NO_STARTS;
  const first = SUBCOMMAND_FIRST.has(program) ? 2 : 1;
  const starts: number[] = [];
  for (let i = first; i < argv.length; i++) if (couldBeCommandWord(argv[i]!)) starts.push(i);
  return starts.length === 0 ? NO_STARTS : starts;
}

/** The command that starts at `argv[start]`, in the same directory. */
export function commandFrom(command: SimpleCommand, start: number): SimpleCommand {
  const argv = command.argv.slice(start);
  return { ...command, argv, program: basename(argv[0]!) };
}

/** Options, assignments and URLs (`https://host/dd`) never name a program to run. */
function couldBeCommandWord(word: string): boolean {
  return word !== '' && !word.startsWith('-') && !word.includes('=') && !word.includes('://');
}

const NO_STARTS: readonly number[] = Object.freeze([]);
