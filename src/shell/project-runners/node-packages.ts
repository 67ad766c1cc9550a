import { readOption, type OptionTable } from './nopt-options.js';
import type { Check } from './options.js';
import { NPM_OPTIONS, NPX_OPTIONS, PNPM_OPTIONS, YARN_OPTIONS } from './package-manager-options.js';
import { scriptWords } from './test-runners.js';
import { vitestWords } from './vitest-words.js';

/**
 * npm, npx, pnpm and yarn: their own options must be on the allowlists of package-manager-options.ts,
 * and the words a project's script receives pass `scriptWords` (test-runners.ts). A test binary run
 * through npx / exec / dlx gets its own check (vitest) or the script words' (jest, mocha).
 */

/** Commands whose words go to no script: npm 11's list and aliases (lib/utils/cmd-list.js) but run, test, start, stop, restart, exec, explore. */
const NPM_OTHER_COMMANDS = new Set([
  'access', 'adduser', 'add-user', 'approve-scripts', 'audit', 'bugs', 'issues', 'cache', 'ci', 'clean-install', 'ic', 'install-clean', 'completion', 'config', 'c',
  'dedupe', 'ddp', 'deny-scripts', 'deprecate', 'diff', 'dist-tag', 'dist-tags', 'docs', 'home', 'doctor', 'explain', 'why', 'find-dupes', 'fund', 'get',
  'help', 'help-search', 'init', 'create', 'install', 'i', 'in', 'add', 'link', 'ln', 'll', 'la', 'login', 'logout', 'ls', 'list', 'org', 'outdated',
  'owner', 'author', 'pack', 'ping', 'pkg', 'prefix', 'profile', 'prune', 'publish', 'query', 'rebuild', 'rb', 'repo', 'root', 'sbom', 'search', 's',
  'se', 'find', 'set', 'shrinkwrap', 'stage', 'star', 'stars', 'team', 'token', 'trust', 'undeprecate', 'uninstall', 'un', 'unlink', 'remove', 'rm',
  'r', 'unpublish', 'unstar', 'update', 'u', 'up', 'upgrade', 'version', 'view', 'v', 'info', 'show', 'whoami', 'install-scripts',
]);
const NPM_RUN = new Set(['run', 'run-script', 'rum', 'urn']);
const NPM_EXEC = new Set(['exec', 'x']);

/** A test binary named as a package (`vitest`, `vitest@4`, `jest`, `mocha`): its arguments' check. */
function packageRunner(pkg: string | undefined, args: readonly string[]): string | undefined {
  if (pkg === undefined) return undefined;
  if (/^vitest(@[^/]*)?$/.test(pkg)) return vitestWords(args);
  return /^(jest|mocha)(@[^/]*)?$/.test(pkg) ? scriptWords(args) : undefined;
}

/**
 * nopt reads npm's options anywhere before `--`; every other word, and every word after `--`, is a
 * positional: the command, then (run) the script's name, then the script's words (npm 7+ hands the
 * script every positional after its name: `npm test x.log` runs `node --test x.log`).
 */
export const npm: Check = (args) => {
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (/^-{2,}$/.test(word)) {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!word.startsWith('-') || word === '-') {
      positionals.push(word);
      continue;
    }
    const reading = readOption(NPM_OPTIONS, args, i);
    if ('problem' in reading) return reading.problem;
    i += reading.span - 1;
  }
  const [written, ...rest] = positionals;
  if (written === undefined) return undefined;
  const command = written.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  if (NPM_OTHER_COMMANDS.has(command)) return undefined;
  if (command.length >= 5 && 'explore'.startsWith(command)) return 'npm explore runs a shell command in a package directory';
  if (NPM_EXEC.has(command)) return packageRunner(rest[0], rest.slice(1));
  // run, test, start, stop, restart, and any word npm may read as one of them (`npm tes`).
  return scriptWords(NPM_RUN.has(command) ? rest.slice(1) : rest);
};

/**
 * `npx [options] PACKAGE ARGS…`: bin/npx-cli.js reads options up to the first positional and puts
 * `--` before it, so everything after the package is the package's. `--no` (`--no-yes`) takes the
 * next word there, which npm then reads as the package.
 */
export const npx: Check = (args) => {
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--' || !word.startsWith('-') || word === '-') {
      positionals.push(...args.slice(word === '--' ? i + 1 : i));
      break;
    }
    if (word === '--no') {
      if (args[i + 1] !== undefined && !args[i + 1]!.startsWith('-')) positionals.push(args[++i]!);
      continue;
    }
    const reading = readOption(NPX_OPTIONS, args, i);
    if ('problem' in reading) return reading.problem;
    i += reading.span - 1;
  }
  return packageRunner(positionals[0], positionals.slice(1));
};

/** Commands whose words go to no script (pnpm's and yarn's documented commands); exec / dlx run a package. */
const PNPM_YARN_OTHER = new Set([
  'add', 'install', 'i', 'update', 'up', 'upgrade', 'remove', 'rm', 'uninstall', 'un', 'link', 'ln', 'unlink', 'import', 'rebuild', 'rb', 'prune',
  'fetch', 'outdated', 'list', 'ls', 'll', 'la', 'why', 'audit', 'licenses', 'publish', 'pack', 'root', 'bin', 'store', 'init', 'config', 'info',
  'cache', 'check', 'autoclean', 'versions', 'version', 'help', 'dedupe', 'explain', 'patch', 'patch-commit', 'deploy', 'doctor', 'login', 'logout',
]);
const PNPM_YARN_EXEC = new Set(['exec', 'dlx', 'create']);

/**
 * `pnpm|yarn [options] COMMAND …`: options before the command (and before a `run` script's name) are
 * the package manager's; a script (`test`, `run NAME`, or any word that is not a command) receives
 * every word after its name, `--` included (pnpm passes it on).
 */
export function pnpmYarn(program: 'pnpm' | 'yarn'): Check {
  const table = program === 'pnpm' ? PNPM_OPTIONS : YARN_OPTIONS;
  return (args) => {
    const command = nextPositional(table, args, 0);
    if (typeof command === 'string') return command;
    if (command === args.length) return undefined;
    const name = args[command]!;
    if (PNPM_YARN_OTHER.has(name)) return ownOptions(table, args.slice(command + 1));
    if (name === 'run' || name === 'run-script' || PNPM_YARN_EXEC.has(name)) {
      const target = nextPositional(table, args, command + 1);
      if (typeof target === 'string') return target;
      if (PNPM_YARN_EXEC.has(name)) return packageRunner(args[target], args.slice(target + 1));
      return scriptWords(args.slice(target + 1));
    }
    return scriptWords(args.slice(command + 1));
  };
}

/** The index of the next positional from `from` (args.length when none), reading options on the way; or why an option is not allowed. */
function nextPositional(table: OptionTable, args: readonly string[], from: number): number | string {
  for (let i = from; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') continue;
    if (!word.startsWith('-') || word === '-') return i;
    const reading = readOption(table, args, i);
    if ('problem' in reading) return reading.problem;
    i += reading.span - 1;
  }
  return args.length;
}

/** The options among a non-script command's words (its positionals are package names, not code). */
function ownOptions(table: OptionTable, args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (!args[i]!.startsWith('-') || args[i] === '-' || args[i] === '--') continue;
    const reading = readOption(table, args, i);
    if ('problem' in reading) return reading.problem;
    i += reading.span - 1;
  }
  return undefined;
}
