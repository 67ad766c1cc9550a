import { count } from './nopt-options.js';
import { scriptPathProblem } from './script-paths.js';

/**
 * The words a project's script receives (`npm test -- …`, `npm test X`, `pnpm|yarn SCRIPT …`, `npx
 * jest|mocha …`). The script is unknown: it may run vitest, jest, mocha or node's own runner (`node
 * --test`), so a word is allowed only when it is harmless in every one of them:
 * - every word, options included, passes `scriptPathProblem` (node --test runs each word after its
 *   first file as a file: `a.test.js --testNamePattern=x.log` ran a file of that name);
 * - an option is one of `SCRIPT_OPTIONS`: each is a switch or filter in the runners that know it, and
 *   stops or is ignored by the others (mocha ignores unknown options; jest, vitest and node refuse
 *   them). Where one runner reads the next word as a value the others read as a file (mocha `-u`
 *   = `--ui MODULE`, `-t` = `--timeout`; jest `-t`), that word passes the path rule as any other;
 * - `--reporter NAME` names a reporter built into both vitest and mocha (jest ignores `--reporter`;
 *   `--reporters` loads a module there).
 * Verified with vitest 4.1, mocha 11, jest 30 and node 20 (test/shell/project-runners-node.test.ts).
 */
const SCRIPT_OPTIONS = new Set([
  '--watch', '--no-watch', '--watch=false', '--watch=true', '--run', '-u', '--coverage', '-t', '--testNamePattern', '--test-name-pattern',
  '-g', '--grep', '--bail', '--passWithNoTests', '--silent', '--verbose', '--ci', '--help', '-h', '--version', '--fix', '--color', '--no-color',
  // jest's and vitest's everyday switches: node refuses them (`-i` too: "either --test or --interactive"), mocha
  // ignores them or reads a harmless one (`-i` is `--invert`).
  '--update', '--updateSnapshot', '--no-coverage', '--runInBand', '-i', '--watchAll=false', '--no-watchAll', '--detectOpenHandles', '--forceExit',
  '--listTests', '--onlyChanged', '--no-cache',
]);
/**
 * Options whose value may follow `=` (the whole word still passes the path rule): name filters,
 * vitest's and jest's `--shard=I/N`, numbers (`--bail=1`, `--maxWorkers=2` or `50%`, `--testTimeout`,
 * eslint's `--max-warnings=0` for a lint script).
 */
const VALUED_OPTIONS: ReadonlyMap<string, (value: string) => boolean> = new Map([
  ...['--testNamePattern', '--test-name-pattern', '--grep', '--testPathPattern'].map((name) => [name, () => true] as const),
  ['--shard', (value: string) => /^\d+\/\d+$/.test(value)],
  ...['--bail', '--testTimeout', '--max-warnings', '--retry'].map((name) => [name, count] as const),
  ['--maxWorkers', (value: string) => /^\d+%?$/.test(value)],
]);
/**
 * Built into vitest 4 and mocha alike, and write no file of their own: any other name is a module to
 * the runner that lacks it (vitest imports `spec`, mocha requires `verbose`), an installed package the
 * line would choose.
 */
const SHARED_REPORTERS = new Set(['dot', 'json', 'tap']);

/**
 * Options of vitest, jest, mocha and node that load a module or config, move the root or write a
 * file (names lowercased, dashes dropped): refused like any unknown option, with this message.
 */
const KNOWN_HAZARDS = new Set([
  'config', 'root', 'dir', 'globalsetup', 'globalteardown', 'setupfiles', 'setupfilesafterenv', 'outputfile', 'environment', 'testenvironment',
  'pool', 'browser', 'workspace', 'projects', 'api', 'ui', 'inspect', 'inspectbrk', 'configloader', 'mergereports', 'rootdir', 'roots', 'testrunner',
  'transform', 'preset', 'resolver', 'watchplugins', 'testsequencer', 'testresultsprocessor', 'coveragedirectory', 'cachedirectory', 'require', 'import',
  'loader', 'experimentalloader', 'file', 'spec', 'extension', 'testreporter', 'testreporterdestination', 'envfile', 'execargv', 'mode', 'reporters',
  'opensslconfig', 'redirectwarnings', 'diagnosticdir', 'r', 'c',
]);

/** Why these script words let the line choose what the script runs or opens; undefined when they do not. */
export function scriptWords(words: readonly string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const option = word.startsWith('-') && word !== '-' && word !== '--' ? scriptOptionProblem(words, i) : undefined;
    if (option) return option;
    const path = scriptPathProblem(word);
    if (path) return `script word ${word}: ${path}`;
  }
  return undefined;
}

/** Why the option at `words[at]` is not allowed in a script's words (a reporter's value is checked where it follows). */
function scriptOptionProblem(words: readonly string[], at: number): string | undefined {
  const word = words[at]!;
  if (word === '--reporter' || word.startsWith('--reporter=')) {
    const value = word === '--reporter' ? words[at + 1] : word.slice('--reporter='.length);
    return value !== undefined && SHARED_REPORTERS.has(value) ? undefined : `test runner --reporter ${value ?? ''}: not a reporter built into every test runner (others are modules to load)`;
  }
  const equals = word.indexOf('=');
  const valid = equals === -1 ? undefined : VALUED_OPTIONS.get(word.slice(0, equals));
  if (SCRIPT_OPTIONS.has(word) || valid?.(word.slice(equals + 1))) return undefined;
  return testRunnerOptionProblem(word, 'vitest, jest, mocha and node --test');
}

/** The message for a test runner option that is not allowed. */
export function testRunnerOptionProblem(word: string, runners: string): string {
  const key = word.replace(/^-+(no-)?/, '').split(/[=.]/, 1)[0]!.replaceAll('-', '').toLowerCase();
  if (KNOWN_HAZARDS.has(key)) return `test runner ${word} loads code or opens files the line chose`;
  return `test runner ${word}: an option not known to be inert in ${runners}`;
}
