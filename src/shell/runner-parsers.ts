/**
 * Programs that run a command but whose grammar no wrapper table describes: su/runuser (options
 * anywhere, a user operand, arguments handed to the shell), sg, kubectl exec, gdb --args,
 * nix-shell --run, and package runners (`npx -c`, `pnpm exec -c`, `yarn exec`) whose code is shell.
 */
import { basename } from './paths.js';
import { isShell } from './shell-invocation.js';
import type { PeelResult, Peeled } from './wrapper-spec.js';
import type { Word } from './words.js';

type Parser = (argv: readonly Word[]) => PeelResult;

const NOT_A_WRAPPER: PeelResult = Object.freeze({ kind: 'not-a-wrapper' });

export function customRunner(program: string): Parser | undefined {
  switch (program) {
    case 'su': return (argv) => parseSu('su', argv);
    case 'runuser': return (argv) => parseSu('runuser', argv);
    case 'sg': return parseSg;
    case 'kubectl': return parseKubectl;
    case 'gdb': return parseGdb;
    case 'nix-shell': return parseNixShell;
    default: return undefined;
  }
}

function peeled(wrapper: string, run: Peeled['run'], extra: Partial<Peeled> = {}): Peeled {
  return {
    kind: 'inner', wrapper, reportSelf: true, run, assignments: [], chdir: undefined, forgetsCwd: false,
    files: [], suppliesArguments: false, notes: [], ...extra,
  };
}

const SU_FLAGS = 'flmpP';
const SU_VALUED = 'cCgGswu';
const SU_LONG_FLAGS = ['fast', 'login', 'preserve-environment', 'pty'];
const SU_LONG_VALUED = ['command', 'session-command', 'group', 'supp-group', 'shell', 'whitelist-environment', 'user'];
const SU_LONG = [...SU_LONG_FLAGS, ...SU_LONG_VALUED, 'help', 'version'];

/**
 * `su [options] [-] [USER [ARG…]]` (getopt_long: options anywhere, unique prefixes); runuser also
 * `-u USER [--] CMD…`. ARGs after the user go to the shell: unresolvable.
 */
function parseSu(program: 'su' | 'runuser', argv: readonly Word[]): PeelResult {
  const operands: Word[] = [];
  const values = new Map<string, Word>();
  let login = false;
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    const text = word.text;
    if (word.dynamic) return { kind: 'unresolvable', reason: `${program} with an argument known only at run time: ${text}` };
    if (text === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (text === '-') {
      login = true;
      continue;
    }
    if (!text.startsWith('-')) {
      operands.push(word);
      continue;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const written = text.slice(2, equals === -1 ? undefined : equals);
      const candidates = SU_LONG.includes(written) ? [written] : SU_LONG.filter((name) => name.startsWith(written));
      const name = candidates.length === 1 ? candidates[0]! : undefined;
      if (!name || (name === 'user' && program === 'su')) return { kind: 'unresolvable', reason: `${program}: unknown or ambiguous option ${text}` };
      if (name === 'help' || name === 'version') return NOT_A_WRAPPER;
      if (name === 'login') login = true;
      if (SU_LONG_FLAGS.includes(name)) continue;
      const value = equals === -1 ? argv[++i] : { ...word, text: text.slice(equals + 1) };
      if (!value) return { kind: 'unresolvable', reason: `${program} --${name} without its value` };
      values.set(name, value);
      continue;
    }
    for (let at = 1; at < text.length; at++) {
      const letter = text[at]!;
      if (letter === 'h' || letter === 'V') return NOT_A_WRAPPER;
      if (letter === 'l') login = true;
      if (SU_FLAGS.includes(letter)) continue;
      if (!SU_VALUED.includes(letter) || (letter === 'u' && program === 'su')) return { kind: 'unresolvable', reason: `${program}: unknown option -${letter} in ${text}` };
      const attached = text.slice(at + 1);
      const value = attached ? { ...word, text: attached } : argv[++i];
      if (!value) return { kind: 'unresolvable', reason: `${program} -${letter} without its value` };
      values.set(LONG_OF[letter]!, value);
      break;
    }
  }
  const shell = values.get('shell');
  if (shell && (shell.dynamic || !isShell(basename(shell.text)))) return { kind: 'unresolvable', reason: `${program} runs its command through ${shell.text}` };
  const code = values.get('command') ?? values.get('session-command');
  const extra = { forgetsCwd: login };
  if (values.has('user')) {
    if (code) return { kind: 'unresolvable', reason: `${program} -u with -c` };
    return operands.length > 0 ? peeled(program, { type: 'argv', words: operands }, extra) : { kind: 'unresolvable', reason: `${program} -u without a command runs a shell` };
  }
  if (operands.length > 1) return { kind: 'unresolvable', reason: `${program} hands extra arguments to the shell: ${operands.slice(1).map((w) => w.text).join(' ')}` };
  if (!code) return { kind: 'unresolvable', reason: `${program} without -c runs a shell reading standard input` };
  return peeled(program, { type: 'code', code }, extra);
}

const LONG_OF: Readonly<Record<string, string>> = { c: 'command', C: 'session-command', g: 'group', G: 'supp-group', s: 'shell', w: 'whitelist-environment', u: 'user' };

/** `sg [-] [GROUP [[-c] COMMAND]]`: COMMAND goes to `/bin/sh -c`. */
function parseSg(argv: readonly Word[]): PeelResult {
  let i = argv[1]?.text === '-' ? 2 : 1;
  if (i >= argv.length) return NOT_A_WRAPPER;
  if (argv[i]!.text.startsWith('-')) return { kind: 'unresolvable', reason: `sg: unknown option ${argv[i]!.text}` };
  i++;
  if (argv[i]?.text === '-c') i++;
  const rest = argv.slice(i);
  if (rest.length === 0) return { kind: 'unresolvable', reason: 'sg without a command runs a shell reading standard input' };
  if (rest.length > 1) return { kind: 'unresolvable', reason: 'sg: expected one command string' };
  return peeled('sg', { type: 'code', code: rest[0]! });
}

/** `kubectl [flags] exec|run|debug … -- CMD…`: the command after `--` runs in a pod. */
function parseKubectl(argv: readonly Word[]): PeelResult {
  const dashes = argv.findIndex((word) => word.text === '--');
  const before = dashes === -1 ? argv : argv.slice(0, dashes);
  if (!before.some((word) => ['exec', 'run', 'debug', 'attach'].includes(word.text))) return NOT_A_WRAPPER;
  if (dashes === -1) {
    return before.some((word) => word.text === 'exec') ? { kind: 'unresolvable', reason: 'kubectl exec without `--`: where the command starts is not known' } : NOT_A_WRAPPER;
  }
  const words = argv.slice(dashes + 1);
  return words.length === 0 ? NOT_A_WRAPPER : peeled('kubectl', { type: 'argv', words }, { forgetsCwd: true, notes: ['kubectl runs the command in a pod'] });
}

const GDB_COMMANDS = /^--?(x|ex|iex|ix|command|eval-command|init-command|init-eval-command)(=|$)/;

/** `gdb [options] --args PROG ARG…`; `-ex`/`-x` run gdb commands (which include `shell`). */
function parseGdb(argv: readonly Word[]): PeelResult {
  for (let i = 1; i < argv.length; i++) {
    const text = argv[i]!.text;
    if (GDB_COMMANDS.test(text)) return { kind: 'unresolvable', reason: `gdb ${text} runs debugger commands` };
    if (text === '--args' || text === '-args') {
      const words = argv.slice(i + 1);
      return words.length === 0 ? NOT_A_WRAPPER : peeled('gdb', { type: 'argv', words });
    }
  }
  return NOT_A_WRAPPER;
}

/** `nix-shell … --run CMD` / `--command CMD`: CMD is shell code. */
function parseNixShell(argv: readonly Word[]): PeelResult {
  for (let i = 1; i < argv.length; i++) {
    const text = argv[i]!.text;
    if (text === '--run' || text === '--command') {
      const code = argv[i + 1];
      return code ? peeled('nix-shell', { type: 'code', code }) : { kind: 'unresolvable', reason: `nix-shell ${text} without a command` };
    }
  }
  return NOT_A_WRAPPER;
}

/**
 * Shell code a package runner runs besides its package binary: `npx -c CODE`, `npm exec --call=CODE`,
 * `pnpm exec|dlx -c CMD…` (shell mode), `yarn exec CMD…`. The binary itself stays an argument
 * (deny rules look through it).
 */
export function packageRunnerCode(program: string, argv: readonly Word[]): Word | undefined {
  const sub = argv[1]?.text;
  if (program === 'npx' || (program === 'npm' && (sub === 'exec' || sub === 'x'))) {
    for (let i = 1; i < argv.length; i++) {
      const text = argv[i]!.text;
      if (text === '--') return undefined;
      if (text === '-c' || text === '--call') return argv[i + 1];
      if (text.startsWith('--call=')) return { ...argv[i]!, text: text.slice('--call='.length) };
    }
    return undefined;
  }
  if (program === 'pnpm' && (sub === 'exec' || sub === 'dlx')) {
    const shellMode = argv.findIndex((word, i) => i > 1 && (word.text === '-c' || word.text === '--shell-mode'));
    return shellMode === -1 ? undefined : joinWords(argv.slice(shellMode + 1));
  }
  if (program === 'yarn' && sub === 'exec') return joinWords(argv.slice(2));
  return undefined;
}

/** The programs `rg --pre CMD` / `--hostname-bin CMD` run. */
export function searchPreprocessors(argv: readonly Word[]): Word[] {
  const programs: Word[] = [];
  for (let i = 1; i < argv.length; i++) {
    const text = argv[i]!.text;
    if (text === '--') break;
    const option = /^--(pre|hostname-bin)(=|$)/.exec(text);
    if (!option) continue;
    const program = option[2] === '=' ? { ...argv[i]!, text: text.slice(option[0].length) } : argv[++i];
    if (program && program.text !== '') programs.push(program);
  }
  return programs;
}

function joinWords(words: readonly Word[]): Word {
  return { text: words.map((word) => word.text).join(' '), dynamic: words.some((word) => word.dynamic), glob: false, tildeUnresolved: false, history: false };
}
