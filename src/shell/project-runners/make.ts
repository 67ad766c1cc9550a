import { abbreviates, longName, ownWords, type Check } from './options.js';
import { leavesProject } from './project-paths.js';

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
    const target = targetHazard(word);
    if (target) return target;
  }
  // After `--`, words are still targets or variable assignments.
  const rest = args.slice(args.indexOf('--') + 1);
  if (args.includes('--') && rest.some((word) => word.includes('='))) return 'make overrides a makefile variable after --';
  return args.includes('--') ? rest.map(targetHazard).find(Boolean) : undefined;
};

/**
 * A target is pasted into recipes as `$@`/`$*` (`build-%: ; go build ./cmd/$*` runs `make 'build-x;id'`'s
 * id) and names the file a rule writes (the built-in `%: %.sh` writes `make ../bin/tool` outside the
 * project): a target must be a plain name in the project.
 */
function targetHazard(word: string): string | undefined {
  if (!/^[A-Za-z0-9_.+/-]+$/.test(word)) return `make ${word}: a target that is not a plain name (recipes paste it into shell code)`;
  return leavesProject(word) ? `make ${word}: a target outside the project (a rule would write it)` : undefined;
}
