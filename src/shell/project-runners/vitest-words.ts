import { count, oneOf, type OptionSpec } from './nopt-options.js';
import { leavesProject } from './project-paths.js';
import { scriptPathProblem } from './script-paths.js';
import { testRunnerOptionProblem } from './test-runners.js';

/**
 * `vitest …` and `npx vitest …`: the program is known, so its own options are read (vitest 4.1's cac
 * table, node_modules/vitest/dist/chunks/cac.*.js) instead of the intersection with jest, mocha and
 * node. Allowed: switches that only select, filter, repeat or report, `-t` with any text (a name
 * pattern), numbers for limits, built-in reporters that write no file of their own. Everything else is
 * refused: `--execArgv=--require=./x.log` ran x.log (verified), `--mode X` loads `.env.X`, `--config`,
 * `--root`, `--setupFiles`, `--coverage.*`, `--outputFile`, `--reporter=blob` (writes
 * .vitest-reports) …; an unknown option stops vitest (CACError), but is refused here too. Positionals
 * are file filters, but `vitest related FILE` reads its sources: they pass the same path rule as
 * script words; `vitest init` writes configuration and is refused.
 */
const VITEST_REPORTERS = new Set(['default', 'agent', 'minimal', 'verbose', 'dot', 'json', 'tap', 'tap-flat', 'junit', 'tree', 'hanging-process', 'github-actions']);

const switchWith = (...values: string[]): OptionSpec => ({ kind: 'switch', switchWords: values });
const value = (valid: (value: string) => boolean): OptionSpec => ({ kind: 'value', valid });
const freeText = value((text) => !text.startsWith('-'));

/** By cac's camelCase name (`--pass-with-no-tests` is `passWithNoTests`). */
const VITEST_LONG = new Map<string, OptionSpec>([
  ...['run', 'passWithNoTests', 'hideSkippedTests', 'allowOnly', 'logHeapUsage', 'globals', 'help', 'version', 'changed'].map((name) => [name, switchWith()] as const),
  // A project of the workspace, by its name in the project's configuration.
  ['project', value((name) => /^[A-Za-z0-9@_-][A-Za-z0-9@._/*-]*$/.test(name) && !leavesProject(name))],
  ...['watch', 'coverage', 'fileParallelism', 'isolate'].map((name) => [name, { kind: 'switch', negatable: true } satisfies OptionSpec] as const),
  ['update', switchWith('new', 'all', 'none')],
  ['silent', switchWith('passed-only')],
  ['testNamePattern', freeText],
  ['reporter', value((name) => VITEST_REPORTERS.has(name))],
  ['reporters', value((name) => VITEST_REPORTERS.has(name))],
  ...['bail', 'retry', 'testTimeout', 'hookTimeout'].map((name) => [name, value(count)] as const),
  ['maxWorkers', value((workers) => /^\d+%?$/.test(workers))],
  ['shard', value((shard) => /^\d+\/\d+$/.test(shard))],
]);
const VITEST_SHORT: ReadonlyMap<string, string> = new Map([['w', 'watch'], ['u', 'update'], ['t', 'testNamePattern'], ['h', 'help'], ['v', 'version']]);

const camelCase = (name: string) => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Why vitest with these arguments runs, loads or writes what the line chose; undefined when it does not. */
export function vitestWords(words: readonly string[]): string | undefined {
  let positionals = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('-') || word === '-' || word === '--') {
      if (positionals++ === 0 && word === 'init') return 'vitest init writes configuration files';
      const path = scriptPathProblem(word);
      if (path) return `vitest ${word}: ${path}`;
      continue;
    }
    const reading = readVitestOption(words, i);
    if (reading === undefined) return testRunnerOptionProblem(word, 'vitest');
    i += reading - 1;
  }
  return undefined;
}

/** How many words an allowed vitest option spans; undefined when it is not allowed. */
function readVitestOption(words: readonly string[], at: number): number | undefined {
  const word = words[at]!;
  const equals = word.indexOf('=');
  const written = word.slice(0, equals === -1 ? undefined : equals);
  const inline = equals === -1 ? undefined : word.slice(equals + 1);
  let name = written.startsWith('--') ? camelCase(written.slice(2)) : VITEST_SHORT.get(written.slice(1));
  let negated = false;
  if (name?.startsWith('no') && /^no[A-Z]/.test(name) && !VITEST_LONG.has(name)) [name, negated] = [name[2]!.toLowerCase() + name.slice(3), true];
  const spec = name === undefined ? undefined : VITEST_LONG.get(name);
  if (spec === undefined || spec.kind === 'fixed') return undefined;
  if (spec.kind === 'value') {
    if (negated) return undefined;
    if (inline !== undefined) return spec.valid(inline) ? 1 : undefined;
    const next = words[at + 1];
    return next !== undefined && spec.valid(next) ? 2 : undefined;
  }
  if (negated && !spec.negatable) return undefined;
  // A switch's optional value (`-u new`, `--silent passed-only`) only after `=`: a following word stays a positional.
  return inline === undefined || oneOf('true', 'false', ...(spec.switchWords ?? []))(inline) ? 1 : undefined;
}
