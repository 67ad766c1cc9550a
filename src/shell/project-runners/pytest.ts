import { ownWords } from './options.js';

/** pytest (argparse without abbreviations, `@FILE` reads arguments from FILE). */
const PYTEST_LONG_HAZARDS = ['--config-file', '--override-ini', '--rootdir', '--confcutdir', '--basetemp', '--junitxml', '--junit-xml', '--resultlog', '--result-log', '--debug', '--log-file', '--pdbcls', '--pastebin', '--inifile', '--pyargs', '--trace-config', '--report-log'];
/** Short options with a value: `-p NAME` imports a plugin, `-c FILE` a config, `-o KEY=V` overrides one. */
const PYTEST_SHORT_HAZARDS = 'pco';
const PYTEST_SHORT_VALUED = 'kmrWn';

export function pytestHazard(args: readonly string[]): string | undefined {
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
