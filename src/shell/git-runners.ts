/**
 * git subcommands that run commands given in their arguments: `rebase -x CMD`, `bisect run CMD…`,
 * `submodule foreach CMD…`, `filter-branch --tree-filter CMD`, `difftool -x CMD`. The caller
 * analyses the shell code and argvs they name; git itself stays a command of its own.
 */
import type { Word } from './words.js';

export interface GitRuns {
  readonly code: readonly Word[];
  readonly argvs: readonly (readonly Word[])[];
  /** A code option whose value we could not find. */
  readonly problem: string | undefined;
}

const GLOBAL_VALUED = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds']);

/** Options whose value is shell code, per subcommand (long names also as `--name=CODE`). */
const CODE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  rebase: ['-x', '--exec'],
  'filter-branch': ['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'],
  difftool: ['-x', '--extcmd'],
  mergetool: [],
};

const NOTHING: GitRuns = { code: [], argvs: [], problem: undefined };

export function gitRuns(argv: readonly Word[]): GitRuns {
  let i = 1;
  while (i < argv.length && argv[i]!.text.startsWith('-')) i += GLOBAL_VALUED.has(argv[i]!.text) ? 2 : 1;
  const subcommand = argv[i]?.text;
  const rest = argv.slice(i + 1);
  if (subcommand === 'bisect') {
    return rest[0]?.text === 'run' && rest.length > 1 ? { ...NOTHING, argvs: [rest.slice(1)] } : NOTHING;
  }
  if (subcommand === 'submodule') {
    const foreach = rest.findIndex((word) => word.text === 'foreach');
    if (foreach === -1) return NOTHING;
    let start = foreach + 1;
    while (start < rest.length && /^-/.test(rest[start]!.text)) start++;
    const words = rest.slice(start);
    return words.length > 0 ? { ...NOTHING, code: [joinWords(words)] } : NOTHING;
  }
  const options = subcommand !== undefined && Object.hasOwn(CODE_OPTIONS, subcommand) ? CODE_OPTIONS[subcommand]! : [];
  const code: Word[] = [];
  for (let at = 0; at < rest.length; at++) {
    const text = rest[at]!.text;
    if (text === '--') break;
    for (const option of options) {
      const equals = text.indexOf('=');
      const name = equals === -1 ? text : text.slice(0, equals);
      // parse-options takes a prefix (`--exe=CMD`); an ambiguous one makes git fail, so over-reading is harmless.
      const named = name === option || (option.startsWith('--') && PARSE_OPTIONS.has(subcommand!) && name.length > 3 && option.startsWith(name));
      if (!named) continue;
      if (equals !== -1) {
        code.push({ ...rest[at]!, text: text.slice(equals + 1) });
        continue;
      }
      const value = rest[at + 1];
      if (!value) return { ...NOTHING, problem: `git ${subcommand} ${option} without its command` };
      code.push(value);
      at++;
    }
    // `-ixCMD`, `-ix CMD`: short flags, then -x with its value attached or next.
    const cluster = /^-([A-Za-z]*?)x(.*)$/.exec(text);
    if (cluster && subcommand !== undefined && Object.hasOwn(SHORT_FLAGS, subcommand) && text !== '-x' && [...cluster[1]!].every((letter) => SHORT_FLAGS[subcommand]!.includes(letter))) {
      const value = cluster[2] ? { ...rest[at]!, text: cluster[2] } : rest[++at];
      if (!value) return { ...NOTHING, problem: `git ${subcommand} ${text} without its command` };
      code.push(value);
    }
  }
  return { ...NOTHING, code };
}

/** Subcommands whose options git's parse-options reads (prefixes allowed); filter-branch is a script. */
const PARSE_OPTIONS: ReadonlySet<string> = new Set(['rebase', 'difftool']);

/** Short options without a value that may precede -x in one word. */
const SHORT_FLAGS: Readonly<Record<string, string>> = { rebase: 'ifkmnpqrv', difftool: 'dgy' };

function joinWords(words: readonly Word[]): Word {
  return { text: words.map((word) => word.text).join(' '), dynamic: words.some((word) => word.dynamic), glob: false, tildeUnresolved: false, history: false };
}
