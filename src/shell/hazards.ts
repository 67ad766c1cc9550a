/**
 * Environment variables whose value decides which program runs or injects code into it
 * (`PATH=. git status` runs ./git; `GIT_EXTERNAL_DIFF=x git diff` runs x; `LD_PRELOAD`, `BASH_ENV`,
 * `NODE_OPTIONS=--require` …). Setting one makes a line unresolvable: the command name no longer
 * tells what will run.
 */

const HAZARDOUS_NAMES: ReadonlySet<string> = new Set([
  'PATH', 'CDPATH', 'HOME', 'XDG_CONFIG_HOME', 'ENV', 'BASH_ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4',
  'PROMPT_COMMAND',
  'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PYTHONINSPECT',
  'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS',
  'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXTERNAL_DIFF', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR',
  'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_EXEC_PATH', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_TEMPLATE_DIR',
  'GIT_PROXY_COMMAND', 'GIT_CONFIG', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT', 'PAGER', 'MANPAGER', 'EDITOR', 'VISUAL', 'LESSOPEN', 'LESSCLOSE', 'BROWSER',
]);

const HAZARDOUS_PREFIXES: readonly string[] = [
  'LD_', 'DYLD_', 'BASH_FUNC_', 'GIT_CONFIG_KEY_', 'GIT_CONFIG_VALUE_', 'npm_config_', 'NPM_CONFIG_',
];

export function isHazardousVariable(name: string): boolean {
  return HAZARDOUS_NAMES.has(name) || HAZARDOUS_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** `NAME=value` / `NAME+=value` → NAME, else undefined. */
export function assignedName(word: string): string | undefined {
  return /^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=/.exec(word)?.[1];
}

/**
 * `git -c key=value` keys that make git run a program (pager, ssh, editor, diff/merge drivers,
 * filters, hooks, aliases with `!`, credential helpers, fsmonitor …).
 */
const GIT_EXECUTING_KEY = /^(core\.(pager|sshcommand|editor|fsmonitor|hookspath|askpass|gitproxy)|alias\.|pager\.|diff\.|merge\.|filter\.|credential|sequence\.editor|gpg\.|uploadpack\.|receivepack\.|remote\..*\.(uploadpack|receivepack|vcs)|include\.|includeif\.|protocol\.|http\..*proxy|interactive\.difffilter|web\.browser|browser\.|man\.|instaweb\.|sendemail\.|submodule\.)/i;

export function isExecutingGitConfig(keyValue: string): boolean {
  const key = keyValue.split('=', 1)[0] ?? '';
  return GIT_EXECUTING_KEY.test(key);
}

/**
 * Builtins that take variable *names* (`read NAME`, `printf -v NAME`, `unset NAME`, `declare NAME`,
 * `test -v NAME` …). A name with a subscript is evaluated as arithmetic: `read 'a[$(rm -rf ~)]'`
 * runs rm. Returns a reason when a name argument is not a plain name or a literal element.
 */
export function nameArgumentHazard(program: string, argv: readonly { text: string; dynamic: boolean }[]): string | undefined {
  const names = nameArguments(program, argv);
  if (names === 'unsafe') return `${program} with options that evaluate code`;
  const unsafe = names?.find((word) => !isSafeName(word.text.split('=', 1)[0] ?? ''));
  return unsafe ? `${program} with a variable name that bash evaluates: ${unsafe.text}` : undefined;
}

type NameWord = { text: string; dynamic: boolean };

/** The programs nameArguments knows (checked first: it runs for every command). */
const NAME_TAKING: ReadonlySet<string> = new Set([
  'printf', 'wait', 'getopts', 'test', '[', 'let', 'mapfile', 'readarray', 'read', 'declare', 'typeset', 'local', 'export', 'readonly', 'unset',
]);

function nameArguments(program: string, argv: readonly NameWord[]): readonly NameWord[] | 'unsafe' | undefined {
  if (!NAME_TAKING.has(program)) return undefined;
  const args = argv.slice(1);
  const after = (flag: string) => args.filter((_, i) => i > 0 && args[i - 1]!.text === flag);
  switch (program) {
    case 'printf':
      return after('-v');
    case 'wait':
      return after('-p');
    case 'getopts':
      return args.slice(1, 2);
    case 'test':
    case '[':
      return after('-v');
    case 'let':
      return args.some((word) => /[A-Za-z_$`]/.test(word.text)) ? 'unsafe' : undefined;
    case 'mapfile':
    case 'readarray':
      if (args.some((word) => word.text.startsWith('-C'))) return 'unsafe';
      return args.filter((word) => !word.text.startsWith('-'));
    case 'read':
      return args.filter((word, i) => !word.text.startsWith('-') && !/^-[pdtnNui]$/.test(args[i - 1]?.text ?? ''));
    case 'declare':
    case 'typeset':
    case 'local':
    case 'export':
    case 'readonly':
      // -i evaluates every later assignment as arithmetic; -n makes names of values.
      if (args.some((word) => /^-[a-zA-Z]*[in]/.test(word.text))) return 'unsafe';
      return args.filter((word) => !word.text.startsWith('-') && !word.text.startsWith('+'));
    case 'unset':
      return args.filter((word) => !word.text.startsWith('-'));
    default:
      return undefined;
  }
}

/** `NAME` or `NAME[digits|@|*]`; anything with a run-time or non-literal subscript is not. */
function isSafeName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*(\[(\d+|@|\*)\])?$/.test(name);
}
