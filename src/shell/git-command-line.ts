/**
 * What the revision readers (git-revisions.ts, git-history-reads.ts) share of a git command line:
 * the options before the subcommand, and where a range's dots stand in a revision word.
 */
import { posix } from 'node:path';

/** Global options whose value is the next word. */
const GLOBAL_VALUED = new Set(['-c', '--config-env', '--exec-path', '--list-cmds', '--super-prefix']);
/** Global options that choose another repository or ref namespace than the one discovered from the directory. */
const OTHER_REPOSITORY = /^--(git-dir|work-tree|namespace|bare)(=|$)/;

export interface GitGlobalOptions {
  /** The directory git starts in: the command's, moved by `-C`. */
  readonly directory: string;
  /** Where the subcommand stands in argv (argv.length when there is none). */
  readonly subcommandAt: number;
  /** Why the repository git uses is not the one found from `directory`. */
  readonly unknown: readonly string[];
}

export function gitGlobalOptions(argv: readonly string[], cwd: string): GitGlobalOptions {
  let directory = cwd;
  const unknown: string[] = [];
  let i = 1;
  for (; i < argv.length && argv[i]!.startsWith('-'); i++) {
    const option = argv[i]!;
    if (option === '-C' && argv[i + 1] !== undefined) directory = posix.resolve(directory, argv[++i]!);
    else if (OTHER_REPOSITORY.test(option)) {
      unknown.push(`git ${option} names another repository than the one git finds from ${directory}`);
      if (!option.includes('=') && option !== '--bare') i++;
    } else if (GLOBAL_VALUED.has(option)) i++;
  }
  return { directory, subcommandAt: i, unknown };
}

/** Where `..` first appears outside `{…}` (`X^{/a..b}` is no range); -1 if nowhere. */
export function dotsOutsideBraces(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const char = text[i];
    if (char === '{') depth++;
    else if (char === '}' && depth > 0) depth--;
    else if (char === '.' && text[i + 1] === '.' && depth === 0) return i;
  }
  return -1;
}
