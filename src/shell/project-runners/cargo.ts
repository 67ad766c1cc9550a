import { longName, ownWords, type Check } from './options.js';

/** cargo: `--config` (a key, or a file), `-Z` flags, another manifest or output directory; libtest's `--logfile`. */
const CARGO_HAZARDS = ['config', 'manifest-path', 'target-dir', 'artifact-dir', 'out-dir', 'lockfile-path'];

export const cargo: Check = (args) => {
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
