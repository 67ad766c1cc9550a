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
