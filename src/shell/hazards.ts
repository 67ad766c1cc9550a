/**
 * Environment variables whose value decides which program runs or injects code into it
 * (`PATH=. git status` runs ./git; `GIT_EXTERNAL_DIFF=x git diff` runs x; `LD_PRELOAD`, `BASH_ENV`,
 * `NODE_OPTIONS=--require` …). Setting one makes a line unresolvable: the command name no longer
 * tells what will run.
 */

const HAZARDOUS_NAMES: ReadonlySet<string> = new Set([
  'PATH', 'CDPATH', 'HOME', 'XDG_CONFIG_HOME', 'ENV', 'BASH_ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4',
  'PROMPT_COMMAND', 'IFS', 'GLOBIGNORE', 'EXECIGNORE', 'TMOUT', 'POSIXLY_CORRECT', 'TEXTDOMAIN', 'TEXTDOMAINDIR',
  'SHELL', 'SUDO_ASKPASS', 'FCEDIT',
  'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PYTHONINSPECT',
  'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS',
  'SSH_ASKPASS', 'PAGER', 'MANPAGER', 'EDITOR', 'VISUAL', 'LESSOPEN', 'LESSCLOSE', 'BROWSER',
  // What build and test runners run or load: make's flags and makefiles, the compilers a makefile or
  // cgo calls, cargo's wrappers and runners (CARGO_* below), go's flags, pytest's options and plugins.
  'MAKEFLAGS', 'GNUMAKEFLAGS', 'MAKEFILES', 'CC', 'CXX', 'CPP', 'LD', 'AR', 'AS', 'CFLAGS', 'CXXFLAGS', 'CPPFLAGS', 'LDFLAGS',
  'RUSTC', 'RUSTC_WRAPPER', 'RUSTC_WORKSPACE_WRAPPER', 'RUSTDOC', 'RUSTFLAGS', 'RUSTDOCFLAGS', 'RUSTUP_TOOLCHAIN',
  'CGO_CFLAGS', 'CGO_LDFLAGS', 'PYTEST_ADDOPTS', 'PYTEST_PLUGINS', 'PYTHONWARNINGS', 'PYTHONBREAKPOINT', 'PYTHONUSERBASE',
  'PYTHONPYCACHEPREFIX', 'PYTHONEXECUTABLE', 'PYTHONPLATLIBDIR', 'MAKE', 'MFLAGS', 'MAKEOVERRIDES', 'VPATH', 'TMPDIR', 'TMP', 'TEMP',
  // Files node and OpenSSL read or write at start (`NODE_EXTRA_CA_CERTS=.env`, warnings appended to any file, engines loaded).
  'NODE_EXTRA_CA_CERTS', 'NODE_REDIRECT_WARNINGS', 'NODE_V8_COVERAGE', 'NODE_COMPILE_CACHE', 'NODE_REPL_EXTERNAL_MODULE', 'NODE_ICU_DATA',
  'OPENSSL_CONF', 'OPENSSL_ENGINES', 'OPENSSL_MODULES', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
  // A file of extra arguments (`--pre=cmd`), read by rg and by older GNU grep.
  'RIPGREP_CONFIG_PATH', 'GREP_OPTIONS',
]);

const HAZARDOUS_PREFIXES: readonly string[] = [
  // BASH_*: BASH_ENV, BASH_FUNC_x%%, BASH_CMDS[ls]=/tmp/evil (the command hash), BASH_ALIASES, BASH_COMPAT …
  // GO*: GOENV=x.log names a file of go settings (GOFLAGS=-toolexec=…), GOWORK, GOPROXY, GOFLAGS …; COVERAGE_*: coverage.py's config and data file.
  'LD_', 'DYLD_', 'BASH_', 'GIT_', 'CARGO_', 'GO', 'COVERAGE_',
];

/** Prefixes their programs match in any case: npm reads /^npm_config_/i (`Npm_Config_script_shell=cmd npm test`), yarn /^yarn_/i. */
const HAZARDOUS_PREFIXES_ANY_CASE: readonly string[] = ['npm_config_', 'yarn_', 'pnpm_'];

export function isHazardousVariable(name: string): boolean {
  if (HAZARDOUS_NAMES.has(name) || HAZARDOUS_PREFIXES.some((prefix) => name.startsWith(prefix))) return true;
  const lower = name.toLowerCase();
  return HAZARDOUS_PREFIXES_ANY_CASE.some((prefix) => lower.startsWith(prefix));
}

/** Builtins for which a prefix `IFS=…` only changes how they split their input (`IFS= read -r l`). */
const IFS_READERS: ReadonlySet<string> = new Set(['read', 'mapfile', 'readarray']);

/** A prefix assignment `NAME=v program …` that changes what runs (`program`: the command name, if known). */
export function isHazardousPrefixAssignment(name: string, program: string | undefined): boolean {
  if (name === 'IFS' && program !== undefined && IFS_READERS.has(program)) return false;
  return isHazardousVariable(name);
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
 * `getopts o NAME`, `wait -p NAME`, `test -v NAME` …). A name with a subscript is evaluated as
 * arithmetic: `read 'a[$(rm -rf ~)]'` runs rm. A name that changes how commands run (`read PATH`,
 * `printf -v CDPATH`, `unset HOME`) is as hazardous as an assignment. Returns a reason or undefined.
 */
export function nameArgumentHazard(program: string, argv: readonly NameWord[]): string | undefined {
  const names = nameArguments(program, argv);
  if (names === 'unsafe') return `${program} with options that evaluate code`;
  if (!names) return undefined;
  // A name from a variable (`read "$n"`) may be any variable, hazardous or a same-line constant.
  const unsafe = names.names.find((word) => word.dynamic || word.fromVariable || !isSafeName(word.text.split('=', 1)[0] ?? ''));
  if (unsafe) return `${program} with a variable name that bash evaluates: ${unsafe.text}`;
  if (!names.assigns) return undefined;
  const hazardous = names.names.find((word) => isHazardousVariable(/^[A-Za-z0-9_]*/.exec(word.text)![0]));
  return hazardous ? `${program} sets ${hazardous.text}, which changes what a command runs` : undefined;
}

export type NameWord = { readonly text: string; readonly dynamic: boolean; readonly fromVariable?: boolean };
type NameArguments = { readonly names: readonly NameWord[]; readonly assigns: boolean };

/** The programs nameArguments knows (checked first: it runs for every command). */
const NAME_TAKING: ReadonlySet<string> = new Set([
  'printf', 'wait', 'getopts', 'test', '[', 'let', 'mapfile', 'readarray', 'read', 'declare', 'typeset', 'local', 'export', 'readonly', 'unset',
]);

/** Options that take a value, per builtin (`read -p PROMPT`); `a` of read takes a NAME. */
const VALUE_OPTIONS: Readonly<Record<string, string>> = { read: 'dinNptu', mapfile: 'dnOsuCc', readarray: 'dnOsuCc', printf: '', wait: '' };

export function nameArguments(program: string, argv: readonly NameWord[]): NameArguments | 'unsafe' | undefined {
  if (!NAME_TAKING.has(program)) return undefined;
  const args = argv.slice(1);
  switch (program) {
    case 'printf':
      return { names: optionValues(args, 'v', ''), assigns: true };
    case 'wait':
      return { names: optionValues(args, 'p', ''), assigns: true };
    case 'getopts':
      return { names: args.slice(1, 2), assigns: true };
    case 'test':
    case '[': {
      const names = args.filter((_, i) => i > 0 && args[i - 1]!.text === '-v');
      return { names, assigns: false };
    }
    case 'let':
      return args.some((word) => /[A-Za-z_$`]/.test(word.text)) ? 'unsafe' : undefined;
    case 'mapfile':
    case 'readarray': {
      if (args.some((word) => /^-[^-]*C/.test(word.text))) return 'unsafe'; // -C CALLBACK is evaluated
      return { names: operands(args, VALUE_OPTIONS[program]!), assigns: true };
    }
    case 'read':
      return { names: [...optionValues(args, 'a', VALUE_OPTIONS.read!), ...operands(args, VALUE_OPTIONS.read! + 'a')], assigns: true };
    case 'declare':
    case 'typeset':
    case 'local':
    case 'export':
    case 'readonly': {
      // -i evaluates every later assignment as arithmetic; -n makes names of values.
      if (args.some((word) => /^-[a-zA-Z]*[in]/.test(word.text))) return 'unsafe';
      const printing = args.some((word) => /^-[a-zA-Z]*[pfF]/.test(word.text));
      return { names: args.filter((word) => !word.text.startsWith('-') && !word.text.startsWith('+')), assigns: !printing };
    }
    case 'unset':
      return { names: args.filter((word) => !word.text.startsWith('-')), assigns: true };
    default:
      return undefined;
  }
}

/** Values of option `letter` (`-v NAME`, `-vNAME`, `-rv NAME`); `valued`: other options taking a value. */
function optionValues(args: readonly NameWord[], letter: string, valued: string): NameWord[] {
  const values: NameWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text;
    if (text === '--' || !text.startsWith('-') || text === '-') break;
    for (let j = 1; j < text.length; j++) {
      const option = text[j]!;
      if (option !== letter && !valued.includes(option)) continue;
      const attached = text.slice(j + 1);
      const value = attached !== '' ? { ...args[i]!, text: attached } : args[++i];
      if (option === letter && value) values.push(value);
      break;
    }
  }
  return values;
}

/** Operands after the options (`valued`: options that take a value). */
function operands(args: readonly NameWord[], valued: string): NameWord[] {
  let i = 0;
  for (; i < args.length; i++) {
    const text = args[i]!.text;
    if (text === '--') {
      i++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    const valueAt = [...text.slice(1)].findIndex((option) => valued.includes(option));
    if (valueAt >= 0 && valueAt === text.length - 2) i++; // the value is the next word
  }
  return args.slice(i);
}

/** `NAME` or `NAME[digits|@|*]`; anything with a run-time or non-literal subscript is not. */
function isSafeName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*(\[(\d+|@|\*)\])?$/.test(name);
}
