/**
 * pytest, an allowlist: the options of pytest 9 (and of xdist, pytest-cov, pytest-timeout,
 * hypothesis, pytest-benchmark) that choose no code, config or file; any other option is refused.
 * Read as pytest's argparse reads them (allow_abbrev=False: no abbreviations; `--x=v`, `--x v`,
 * `-kEXPR`, clustered flags). Two readings happen before argparse and see every word, `--` and
 * option values included: `@FILE` (fromfile_prefix_chars: `pytest -- @.env` prints .env) and the
 * plugin scan for `-p NAME`/`-pNAME` (`pytest tests -- -px` imports x). Paths — positionals, node
 * ids before `::`, `--ignore`, `--deselect`, `--cov` — must stay in the project.
 */
import { checked, FLAG, oneOf, readOptions, table, VALUE, type Arity, type ValueCheck } from './exact-options.js';
import { outsideProject } from './project-paths.js';

const inProject: ValueCheck = (path) => (outsideProject('', path.split('::', 1)[0]!) ? 'a path outside the project' : undefined);
const number: Arity = checked((value) => (/^-?[0-9.]+$/.test(value) ? undefined : 'takes a number'));

/** `-W action:message:category:module:lineno`: a category with a dot names a module that pytest imports (`error::this.W`). */
const warningFilter: Arity = checked((value) => ((value.split(':')[2] ?? '').includes('.') ? 'imports the module of its warning category' : undefined));
/** `-p no:NAME` blocks a plugin; any other `-p NAME` imports one. */
const plugin: Arity = checked((value) => (blocksPlugin(value) ? undefined : 'imports the plugin module it names'));
const blocksPlugin = (value: string) => value.trim().startsWith('no:');

const FLAGS = [
  'markers', 'exitfirst', 'strict-config', 'strict-markers', 'strict', 'fixtures', 'funcargs', 'fixtures-per-test', 'runxfail',
  'lf', 'last-failed', 'ff', 'failed-first', 'nf', 'new-first', 'cache-clear', 'sw', 'stepwise', 'sw-skip', 'stepwise-skip',
  'sw-reset', 'stepwise-reset', 'verbose', 'quiet', 'no-header', 'no-summary', 'no-fold-skipped', 'force-short-summary',
  'disable-warnings', 'disable-pytest-warnings', 'showlocals', 'no-showlocals', 'xfail-tb', 'full-trace', 'collect-only', 'co',
  'collectonly', 'noconftest', 'keep-duplicates', 'collect-in-virtualenv', 'continue-on-collection-errors', 'doctest-modules',
  'doctest-ignore-import-errors', 'doctest-continue-on-failure', 'version', 'help', 'setup-only', 'setup-show', 'setup-plan',
  'disable-plugin-autoload',
  // plugins: hypothesis, pytest-benchmark, pytest-cov
  'hypothesis-show-statistics', 'benchmark-skip', 'benchmark-disable', 'benchmark-enable', 'benchmark-only', 'cov-branch',
  'no-cov', 'no-cov-on-fail', 'cov-append',
];

const LONG: Record<string, Arity> = {
  ...Object.fromEntries(FLAGS.map((name) => [name, FLAG])),
  maxfail: number, durations: number, 'durations-min': number, verbosity: number,
  capture: oneOf('fd', 'sys', 'no', 'tee-sys'), tb: oneOf('auto', 'long', 'short', 'line', 'native', 'no'),
  'show-capture': oneOf('no', 'stdout', 'stderr', 'log', 'all'), color: oneOf('yes', 'no', 'auto'), 'code-highlight': oneOf('yes', 'no'),
  lfnf: oneOf('all', 'none'), 'last-failed-no-failures': oneOf('all', 'none'), 'cache-show': { takes: 'optional' },
  pythonwarnings: warningFilter, ignore: checked(inProject), 'ignore-glob': checked(inProject), deselect: checked(inProject),
  'import-mode': oneOf('prepend', 'append', 'importlib'), 'doctest-report': oneOf('none', 'cdiff', 'ndiff', 'udiff', 'only_first_failure'),
  assert: oneOf('plain', 'rewrite'),
  // logging to the terminal and the report (formats are %-style and strftime: they name no file)
  'log-level': VALUE, 'log-format': VALUE, 'log-date-format': VALUE, 'log-cli-level': VALUE, 'log-cli-format': VALUE,
  'log-cli-date-format': VALUE, 'log-auto-indent': VALUE, 'log-disable': VALUE,
  'hypothesis-seed': VALUE, 'hypothesis-verbosity': oneOf('quiet', 'normal', 'verbose', 'debug'), 'hypothesis-profile': VALUE,
  // xdist without --tx/--rsyncdir (they start interpreters and copy trees the line names)
  numprocesses: VALUE, maxprocesses: number, 'max-worker-restart': number,
  dist: oneOf('no', 'load', 'loadscope', 'loadfile', 'loadgroup', 'worksteal', 'each'),
  // pytest-cov: sources in the project, reports to the terminal only
  cov: { takes: 'optional', check: inProject }, 'cov-report': oneOf('term', 'term-missing', 'term:skip-covered', 'term-missing:skip-covered'),
  'cov-fail-under': number, 'cov-context': oneOf('test'),
  timeout: number, 'timeout-method': oneOf('signal', 'thread'),
};

const SHORT: Record<string, Arity> = {
  k: VALUE, m: VALUE, r: VALUE, n: VALUE, W: warningFilter, p: plugin,
  x: FLAG, s: FLAG, v: FLAG, q: FLAG, l: FLAG, V: FLAG, h: FLAG,
};

const LOADS = 'loads or writes what the line chose';
const HAZARDS: Record<string, string> = {
  '-c': 'reads a config the line chose', '-o': 'overrides the project\'s config (addopts, plugins …)',
  ...Object.fromEntries(['--config-file', '--override-ini', '--rootdir', '--confcutdir', '--basetemp', '--junitxml', '--junit-xml',
    '--junit-prefix', '--resultlog', '--result-log', '--debug', '--log-file', '--pdb', '--pdbcls', '--trace', '--pastebin', '--inifile',
    '--pyargs', '--trace-config', '--report-log', '--tx', '--rsyncdir', '--html', '--cov-config'].map((name) => [name, LOADS])),
  '--doctest-glob': 'runs the doctests of the files it matches (x.log)',
};

const PYTEST = table(LONG, SHORT, HAZARDS);

export function pytestHazard(args: readonly string[]): string | undefined {
  const early = earlyReading(args);
  if (early) return early;
  const reading = readOptions('pytest', args, PYTEST);
  if (typeof reading === 'string') return reading;
  // After `--` every word is a path or node id.
  for (const word of [...reading.positionals, ...(reading.trailing ?? [])]) {
    if (inProject(word)) return `pytest ${word}: tests and conftest.py outside the project`;
  }
  return undefined;
}

/** What pytest reads from every word before parsing: `@FILE`, and `-p NAME` / `-pNAME` (pytest's consider_preparse). */
function earlyReading(args: readonly string[]): string | undefined {
  for (const [index, word] of args.entries()) {
    if (word.startsWith('@')) return `pytest ${word} reads its arguments from a file`;
    const named = word === '-p' ? args[index + 1] : word.startsWith('-p') ? word.slice(2) : undefined;
    if (named !== undefined && !blocksPlugin(named)) return `pytest -p ${named}: imports a plugin the line chose`;
  }
  return undefined;
}
