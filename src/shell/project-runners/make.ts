import { abbreviates, longName, ownWords, type Check } from './options.js';

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

export const make: Check = (args) => {
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
