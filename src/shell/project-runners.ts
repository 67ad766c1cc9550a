/**
 * Options of the programs that run a project's own code (make, npm/pnpm/yarn scripts, npx and
 * vitest, cargo, go, pytest) with which the line, not the project, chooses what runs, which code is
 * loaded or which files are opened: `make test --eval='x: ; cmd'` or `SHELL=cmd`, `npm test
 * --script-shell=cmd` / `--node-options=--require=./x.log`, `cargo test --config
 * 'target.….runner="cmd"'`, `go test -exec cmd`, `pytest @.env` (arguments read from a file, shown
 * in its errors). A policy that allows `make test` trusts the project's files, not these: each one
 * makes the line unresolvable (asked, never allowed). Checked with the real programs where they
 * run here (GNU make, npm, vitest, pytest, cargo: test/shell/red-team-programs.test.ts says which
 * lines); go, pnpm, yarn, jest and mocha from their documentation.
 */
import type { Word } from './words.js';

type Check = (args: readonly string[]) => string | undefined;

/** `--name=value` / `--name` → name (no dashes); undefined for a word that is not a long option. */
function longName(word: string): string | undefined {
  if (!word.startsWith('--') || word === '--') return undefined;
  const equals = word.indexOf('=');
  return word.slice(2, equals === -1 ? undefined : equals);
}

/** getopt_long / nopt take any unique prefix: a name that may abbreviate one of `names` counts as it. */
function abbreviates(name: string, names: readonly string[]): string | undefined {
  return name.length === 0 ? undefined : names.find((full) => full.startsWith(name));
}

/** The words before a `--` that ends the program's own options. */
function ownWords(args: readonly string[]): readonly string[] {
  const end = args.indexOf('--');
  return end === -1 ? args : args.slice(0, end);
}

// GNU make: short options with a value, without, and with an optional value glued on (`-j4`).
const MAKE_LONG_HAZARDS = ['file', 'makefile', 'eval', 'directory', 'include-dir'];
/** GNU make 4.3's other long options: none reads a file or code the line chose. Any other is not known. */
const MAKE_LONG_KNOWN = [
  'always-make', 'assume-new', 'assume-old', 'check-symlink-times', 'debug', 'dry-run', 'environment-overrides', 'help',
  'ignore-errors', 'jobs', 'just-print', 'keep-going', 'load-average', 'max-load', 'new-file', 'no-builtin-rules',
  'no-builtin-variables', 'no-keep-going', 'no-print-directory', 'old-file', 'output-sync', 'print-data-base',
  'print-directory', 'question', 'quiet', 'recon', 'silent', 'stop', 'touch', 'trace', 'version', 'warn-undefined-variables', 'what-if',
];
const MAKE_SHORT_HAZARDS = 'fCIE';
const MAKE_SHORT_VALUED = 'oW';
const MAKE_SHORT_FLAGS = 'bBdehikLmnpqrRsStvw';
const MAKE_SHORT_OPTIONAL = 'jlO';

const make: Check = (args) => {
  for (const word of ownWords(args)) {
    const long = longName(word);
    if (long !== undefined) {
      const hazard = abbreviates(long, MAKE_LONG_HAZARDS);
      if (hazard) return `make --${hazard} reads a makefile or code the line chose`;
      if (!abbreviates(long, MAKE_LONG_KNOWN)) return `make --${long}: an option the analysis does not know`;
      continue;
    }
    if (word.startsWith('-') && word.length > 1) {
      for (const letter of word.slice(1)) {
        if (MAKE_SHORT_HAZARDS.includes(letter)) return `make -${letter} reads a makefile or code the line chose`;
        if (MAKE_SHORT_VALUED.includes(letter) || MAKE_SHORT_OPTIONAL.includes(letter)) break;
        if (!MAKE_SHORT_FLAGS.includes(letter)) return `make -${letter}: an option the analysis does not know`;
      }
      continue;
    }
    // `make test SHELL=cmd` / `CC=cmd`: a variable set on the command line overrides the makefile's.
    if (word.includes('=')) return `make ${word} overrides a makefile variable (its recipes may run it)`;
  }
  // After `--`, words are still targets or variable assignments.
  const rest = args.slice(args.indexOf('--') + 1);
  if (args.includes('--') && rest.some((word) => word.includes('='))) return 'make overrides a makefile variable after --';
  return undefined;
};

/** npm config keys that run a program, load code, move the project or read a config file. */
const NPM_HAZARDS = ['script-shell', 'node-options', 'prefix', 'global', 'location', 'userconfig', 'globalconfig', 'logs-dir', 'cache', 'package', 'call', 'shell', 'init-module', 'onload-script', 'node-gyp'];

/** npm and npx: their options before `--`. */
function npmHazard(args: readonly string[], program: string): string | undefined {
  for (const word of ownWords(args)) {
    const long = longName(word);
    const hazard = long === undefined ? undefined : abbreviates(long.replace(/^no-/, ''), NPM_HAZARDS);
    if (hazard) return `${program} --${hazard} runs or loads what the line chose`;
    if (/^-[A-Za-z]*[Cpcg]/.test(word) && !word.startsWith('--')) return `${program} ${word}: -C, -g, -p and -c change the project, package or command`;
  }
  return undefined;
}

/** Words after `--` go to the project's script: a test runner, whose options are checked (`npm test -- --reporter=./x.log` loads x.log). */
const npm: Check = (args) => npmHazard(args, 'npm') ?? (args.includes('--') ? testRunner(args.slice(args.indexOf('--') + 1)) : undefined);

/** pnpm and yarn: the same concerns under their own names; `--config.KEY=` sets any key. */
const PNPM_YARN_HAZARDS = [...NPM_HAZARDS, 'dir', 'cwd', 'use-yarnrc', 'global-folder', 'modules-folder', 'shell-emulator', 'npmrc', 'config'];

function pnpmYarn(program: string): Check {
  return (args) => {
    for (const word of ownWords(args)) {
      const long = longName(word);
      const hazard = long === undefined ? undefined : abbreviates(long.replace(/^no-/, '').replace(/\..*$/, ''), PNPM_YARN_HAZARDS);
      if (hazard) return `${program} --${hazard} runs, loads or moves what the line chose`;
      if (/^-[A-Za-z]*C/.test(word) && !word.startsWith('--')) return `${program} ${word}: -C runs another directory's scripts`;
    }
    // `pnpm test ARGS` / `yarn test ARGS`: the words after the script name go to it.
    const script = args.findIndex((word) => !word.startsWith('-'));
    return script === -1 ? undefined : testRunner(args.slice(script + 1).filter((word) => word !== '--'));
  };
}

/**
 * `npx [npm options] PACKAGE ARGS…`: npm's options before the package, the test runner's after it (a
 * valued npm option may hide where the package starts: every word after a `vitest` is read as its).
 */
const npx: Check = (args) => {
  const at = args.findIndex((word) => !word.startsWith('-'));
  const problem = npmHazard(at === -1 ? args : args.slice(0, at), 'npx');
  if (problem) return problem;
  const runner = args.findIndex((word) => /^(vitest|jest|mocha)(@[^/]*)?$/.test(word));
  return runner === -1 ? undefined : testRunner(args.slice(runner + 1));
};

/**
 * Options of the test runners a project's script runs (vitest; jest, mocha and node's test runner
 * too: the script may be any of them) that load a module or config, move the root or write a file.
 * vitest's cac reads `--global-setup` as `--globalSetup` and `--a.b` as a nested key.
 */
const TEST_RUNNER_HAZARDS = new Set([
  'config', 'root', 'dir', 'globalsetup', 'globalteardown', 'setupfiles', 'setupfilesafterenv', 'outputfile', 'environment', 'testenvironment',
  'pool', 'pooloptions', 'browser', 'workspace', 'projects', 'api', 'ui', 'open', 'inspect', 'inspectbrk', 'configloader', 'mergereports', 'diff',
  'snapshotserializers', 'resolvesnapshotpath', 'snapshotresolver', 'rootdir', 'roots', 'testrunner', 'transform', 'preset', 'resolver', 'watchplugins',
  'testsequencer', 'testresultsprocessor', 'moduledirectories', 'modulepaths', 'coveragedirectory', 'coveragereporters', 'coverageprovider', 'cachedirectory',
  'require', 'import', 'loader', 'experimentalloader', 'file', 'testreporter', 'testreporterdestination', 'envfile', 'extension',
]);
/** Switches on their own (`--coverage`), hazards with a nested key (`--coverage.provider=custom`, `--typecheck.checker=`). */
const VITEST_NESTED_HAZARDS = new Set(['coverage', 'typecheck', 'cache', 'sequence']);

/** `--reporter` names a built-in reporter or a module to load. */
const BUILT_IN_REPORTERS = new Set([
  'default', 'basic', 'verbose', 'dot', 'json', 'junit', 'tap', 'tap-flat', 'hanging-process', 'github-actions', 'blob', 'html', 'tree', 'summary',
  'spec', 'nyan', 'landing', 'list', 'progress', 'json-stream', 'min', 'doc', 'markdown', 'xunit',
]);

const testRunner: Check = (args) => {
  const own = ownWords(args);
  for (let i = 0; i < own.length; i++) {
    const word = own[i]!;
    const long = longName(word);
    if (long === 'reporter' || long === 'reporters') {
      const value = word.includes('=') ? word.slice(word.indexOf('=') + 1) : own[++i];
      if (value === undefined || !BUILT_IN_REPORTERS.has(value)) return `test runner --${long} ${value ?? ''}: a reporter module the line chose`;
      continue;
    }
    if (long !== undefined) {
      const key = long.replace(/^no-/, '').split('.')[0]!.replaceAll('-', '').toLowerCase();
      if (TEST_RUNNER_HAZARDS.has(key) || (VITEST_NESTED_HAZARDS.has(key) && long.includes('.'))) return `test runner --${long} loads code or opens files the line chose`;
      continue;
    }
    if (/^-[A-Za-z]*[cr]/.test(word)) return `test runner ${word}: -c (config) and -r (root, mocha's require) load what the line chose`;
  }
  return undefined;
};

/** cargo: `--config` (a key, or a file), `-Z` flags, another manifest or output directory; libtest's `--logfile`. */
const CARGO_HAZARDS = ['config', 'manifest-path', 'target-dir', 'artifact-dir', 'out-dir', 'lockfile-path'];

const cargo: Check = (args) => {
  if (args[0]?.startsWith('+')) return `cargo ${args[0]}: a toolchain the line chose`;
  if (args.some((word) => word === '-C' || /^-C./.test(word))) return 'cargo -C runs another directory\'s project';
  for (const word of ownWords(args)) {
    const long = longName(word);
    if (long !== undefined && CARGO_HAZARDS.includes(long)) return `cargo --${long} runs or writes what the line chose`;
    if (word.startsWith('-Z')) return `cargo ${word}: unstable flags (config includes, other tools)`;
  }
  const end = args.indexOf('--');
  if (end !== -1 && args.slice(end + 1).some((word) => /^--logfile(=|$)/.test(word))) return 'cargo test -- --logfile writes a file the line chose';
  return undefined;
};

/** go: flags take one or two dashes and `=`; `-test.X` is X for `go test`. */
const GO_HAZARDS = new Set(['exec', 'toolexec', 'vettool', 'o', 'coverprofile', 'cpuprofile', 'memprofile', 'blockprofile', 'mutexprofile', 'trace', 'outputdir', 'modfile', 'overlay', 'pgo', 'c', 'ldflags', 'gccgoflags', 'compiler', 'asmflags', 'gcflags', 'fuzzcachedir', 'testlogfile', 'gocoverdir']);

const go: Check = (args) => {
  for (const word of args) {
    if (!word.startsWith('-')) continue;
    const name = word.replace(/^--?/, '').split('=', 1)[0]!.replace(/^test\./, '').toLowerCase();
    if (GO_HAZARDS.has(name)) return `go ${word}: runs, loads or writes what the line chose`;
  }
  return undefined;
};

/** pytest (argparse without abbreviations, `@FILE` reads arguments from FILE). */
const PYTEST_LONG_HAZARDS = ['--config-file', '--override-ini', '--rootdir', '--confcutdir', '--basetemp', '--junitxml', '--junit-xml', '--resultlog', '--result-log', '--debug', '--log-file', '--pdbcls', '--pastebin', '--inifile', '--pyargs', '--trace-config', '--report-log'];
/** Short options with a value: `-p NAME` imports a plugin, `-c FILE` a config, `-o KEY=V` overrides one. */
const PYTEST_SHORT_HAZARDS = 'pco';
const PYTEST_SHORT_VALUED = 'kmrWn';

function pytestHazard(args: readonly string[]): string | undefined {
  for (const word of ownWords(args)) {
    if (word.startsWith('@')) return `pytest ${word} reads its arguments from a file`;
    if (word.startsWith('--')) {
      const name = word.split('=', 1)[0]!;
      if (PYTEST_LONG_HAZARDS.includes(name)) return `pytest ${name} loads or writes what the line chose`;
      continue;
    }
    // A test path outside the project brings its own conftest.py and ini files (`pytest /other/tests`).
    if (!word.startsWith('-') && /^[/~]|(^|\/)\.\.(\/|$)/.test(word)) return `pytest ${word}: tests and conftest.py outside the project`;
    if (!word.startsWith('-')) continue;
    for (const letter of word.slice(1)) {
      if (PYTEST_SHORT_HAZARDS.includes(letter)) return `pytest -${letter} loads a plugin or config the line chose`;
      if (PYTEST_SHORT_VALUED.includes(letter)) break;
    }
  }
  return undefined;
}

const CHECKS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ['make', make], ['gmake', make],
  ['npm', npm], ['npx', npx], ['pnpm', pnpmYarn('pnpm')], ['yarn', pnpmYarn('yarn')], ['vitest', testRunner], ['jest', testRunner], ['mocha', testRunner],
  ['cargo', cargo], ['go', go], ['pytest', pytestHazard], ['py.test', pytestHazard],
]);

/** Programs that run a project's own code (its scripts, makefile, tests, build scripts). */
export function isProjectRunner(program: string): boolean {
  return CHECKS.has(program);
}

/**
 * Why `program` with these arguments runs what the line (not the project) chose; undefined when it
 * does not. Variables set for it are judged with the whole line's (runner-environment.ts): make takes
 * every variable of its environment as a make variable (`PY ?= python3` then `$(PY) -m pytest`), and a
 * project's scripts may read any.
 */
export function projectRunnerHazard(program: string, argv: readonly Word[]): string | undefined {
  const check = CHECKS.get(program);
  return check ? check(argv.slice(1).map((word) => word.text)) : undefined;
}
