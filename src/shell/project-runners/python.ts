/**
 * `python -m pytest` is pytest (pytest.ts reads its words). Python's own options before `-m` may
 * load code or write files (`-W` imports the module of a warning category, `-X pycache_prefix=DIR`
 * writes there): only the inert ones are known, and any other makes a pytest run unresolvable.
 * A python line that runs another module, `-c` code or a script is not a runner checked here.
 */
import type { Check } from './options.js';
import { pytestHazard } from './pytest.js';

/** CPython 3's options without a value that load and write nothing (`python3 --help`). */
const FLAGS = 'bBdEIOPqsSuv';
/** `-X` options that load and write nothing. */
const X_OPTION = /^(utf8(=[01])?|dev|faulthandler|importtime(=2)?|tracemalloc(=\d+)?|warn_default_encoding|no_debug_ranges|frozen_modules=(on|off)|int_max_str_digits=\d+)$/;
const MODULE_RUNNERS: Readonly<Record<string, Check>> = { pytest: pytestHazard };

export const python: Check = (args) => {
  let problem: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    // A script, stdin or `--` then a script: not a module run.
    if (word === '--' || word === '-' || !word.startsWith('-')) return undefined;
    if (word.startsWith('--')) {
      problem ??= `python ${word}: an option the analysis does not know`;
      continue;
    }
    for (let at = 1; at < word.length; at++) {
      const letter = word[at]!;
      if (FLAGS.includes(letter)) continue;
      if (letter === 'c') return undefined;
      if (letter !== 'm' && letter !== 'X' && letter !== 'W') {
        problem ??= `python -${letter}: an option the analysis does not know`;
        continue;
      }
      const glued = word.slice(at + 1);
      const value = glued !== '' ? glued : args[++i];
      if (value === undefined) return undefined;
      if (letter === 'm') {
        const runner = MODULE_RUNNERS[value];
        return runner ? (problem ?? runner(args.slice(i + 1))) : undefined;
      }
      if (letter === 'W') problem ??= `python -W ${value}: a warning category names a module python imports`;
      else if (!X_OPTION.test(value)) problem ??= `python -X ${value}: an option the analysis does not know`;
      break;
    }
  }
  return undefined;
};
