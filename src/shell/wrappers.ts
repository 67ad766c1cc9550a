/**
 * Commands that run another command given in their arguments (`sudo rm …`, `timeout 5 npm test`,
 * `xargs rm`). Peeling one gives the inner argv, so rules for the inner command still match.
 *
 * Reporting: a wrapper that changes privilege (sudo, doas, pkexec) is also reported as a command
 * of its own (full argv), so a rule can deny `sudo` as such; the others are transparent and only
 * listed in `SimpleCommand.wrappers`. A wrapper with no inner command is reported as itself.
 * An option we do not know makes the line unresolvable: guessing whether it takes a value could
 * make us analyse the wrong word as the command.
 */
import { assignedName } from './hazards.js';
import type { Word } from './words.js';

interface WrapperSpec {
  /** Short options without a value. */
  readonly flags?: string;
  /** Short options with a value (attached `-uroot` or next word). */
  readonly valued?: string;
  /** Short options whose value must be attached (`xargs -i{}`), or absent. */
  readonly optionalValued?: string;
  readonly longFlags?: readonly string[];
  readonly longValued?: readonly string[];
  /** Long options whose value is only given with `=`. */
  readonly longOptional?: readonly string[];
  /** Options meaning "no command follows" (sudo -l, command -v). */
  readonly noCommand?: string;
  readonly longNoCommand?: readonly string[];
  /** `nice -5`: a dash and digits is an option. */
  readonly numericOption?: boolean;
  /** Operands before the command (timeout's DURATION). */
  readonly leadingOperands?: number;
  readonly acceptsAssignments?: boolean;
  readonly reportSelf?: boolean;
  /** Options that set the inner command's working directory. */
  readonly chdir?: readonly string[];
  /** Options whose value is a file the wrapper writes. */
  readonly writes?: readonly string[];
  /** Inner arguments are supplied at run time (xargs). */
  readonly suppliesArguments?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    flags: 'AbBEHiknPSs', valued: 'ugprtTUCDRh', noCommand: 'elvVK', acceptsAssignments: true, reportSelf: true,
    longFlags: ['login', 'shell', 'set-home', 'non-interactive', 'reset-timestamp', 'stdin', 'background', 'askpass', 'preserve-groups', 'bell'],
    longValued: ['user', 'group', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'close-from', 'chdir', 'chroot'],
    longOptional: ['preserve-env'],
    longNoCommand: ['edit', 'list', 'validate', 'version', 'help', 'remove-timestamp'],
    chdir: ['D', 'chdir'],
  },
  doas: { flags: 'ns', valued: 'uC', noCommand: 'L', reportSelf: true },
  pkexec: { longFlags: ['disable-internal-agent', 'keep-cwd'], longValued: ['user'], longNoCommand: ['version', 'help'], reportSelf: true },
  env: {
    flags: '0iv', valued: 'uC', acceptsAssignments: true, chdir: ['C', 'chdir'],
    longFlags: ['ignore-environment', 'null', 'debug', 'list-signal-handling'],
    longValued: ['unset', 'chdir'],
    longOptional: ['default-signal', 'ignore-signal', 'block-signal'],
    longNoCommand: ['help', 'version'],
  },
  timeout: {
    flags: 'v', valued: 'sk', leadingOperands: 1,
    longFlags: ['preserve-status', 'foreground', 'verbose'], longValued: ['signal', 'kill-after'], longNoCommand: ['help', 'version'],
  },
  nice: { valued: 'n', longValued: ['adjustment'], numericOption: true, longNoCommand: ['help', 'version'] },
  nohup: { longNoCommand: ['help', 'version'] },
  stdbuf: { valued: 'ioe', longValued: ['input', 'output', 'error'], longNoCommand: ['help', 'version'] },
  command: { flags: 'p', noCommand: 'vV' },
  builtin: {},
  exec: { flags: 'cl', valued: 'a' },
  time: {
    flags: 'pavq', valued: 'of', writes: ['o', 'output'],
    longFlags: ['portability', 'append', 'verbose', 'quiet'], longValued: ['output', 'format'], longNoCommand: ['help', 'version'],
  },
  ionice: { flags: 't', valued: 'cn', noCommand: 'pPu', longFlags: ['ignore'], longValued: ['class', 'classdata'], longNoCommand: ['pid', 'pgid', 'uid', 'help', 'version'] },
  coproc: {},
  setsid: { flags: 'cfw', longFlags: ['ctty', 'fork', 'wait'], longNoCommand: ['help', 'version'] },
  xargs: {
    flags: '0rtpxo', valued: 'ILnPsdEa', optionalValued: 'ile', suppliesArguments: true,
    longFlags: ['null', 'no-run-if-empty', 'verbose', 'interactive', 'exit', 'open-tty'],
    longValued: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    longOptional: ['replace', 'eof', 'max-lines'],
    longNoCommand: ['help', 'version', 'show-limits'],
  },
};

export type PeelResult =
  | { readonly kind: 'not-a-wrapper' }
  | { readonly kind: 'unresolvable'; readonly reason: string }
  | {
      readonly kind: 'inner';
      readonly wrapper: string;
      readonly reportSelf: boolean;
      readonly inner: readonly Word[];
      readonly assignments: readonly Word[];
      readonly chdir: Word | undefined;
      readonly writes: readonly Word[];
      readonly suppliesArguments: boolean;
    };

const NOT_A_WRAPPER: PeelResult = Object.freeze({ kind: 'not-a-wrapper' });

export function isWrapper(program: string): boolean {
  return Object.hasOwn(WRAPPERS, program);
}

/** Peels one wrapper off `argv` (argv[0] is the wrapper, already checked to be literal). */
export function peelWrapper(program: string, argv: readonly Word[]): PeelResult {
  // Own keys only: `constructor`, `toString` … are program names, not wrappers.
  const spec = Object.hasOwn(WRAPPERS, program) ? WRAPPERS[program] : undefined;
  if (!spec) return NOT_A_WRAPPER;
  const state = { chdir: undefined as Word | undefined, writes: [] as Word[], assignments: [] as Word[] };
  let i = 1;
  while (i < argv.length) {
    const word = argv[i]!;
    const text = word.text;
    if (word.dynamic) return { kind: 'unresolvable', reason: `${program} with an argument known only at run time: ${text}` };
    if (text === '--') {
      i++;
      break;
    }
    if (spec.acceptsAssignments && assignedName(text)) {
      state.assignments.push(word);
      i++;
      continue;
    }
    if (program === 'env' && text === '-') {
      i++;
      continue;
    }
    if (!text.startsWith('-') || text === '-') break;
    const step = text.startsWith('--') ? longOption(spec, text, argv, i, state) : shortOptions(spec, text, argv, i, state);
    if (typeof step !== 'number') return step === 'no-command' ? { kind: 'not-a-wrapper' } : { kind: 'unresolvable', reason: `${program}: unknown option ${text}` };
    i = step;
  }
  i += spec.leadingOperands ?? 0;
  if (i >= argv.length) return { kind: 'not-a-wrapper' };
  return {
    kind: 'inner',
    wrapper: program,
    reportSelf: spec.reportSelf ?? false,
    inner: argv.slice(i),
    assignments: state.assignments,
    chdir: state.chdir,
    writes: state.writes,
    suppliesArguments: spec.suppliesArguments ?? false,
  };
}

interface OptionState {
  chdir: Word | undefined;
  writes: Word[];
}

type OptionStep = number | 'no-command' | 'unknown';

function longOption(spec: WrapperSpec, text: string, argv: readonly Word[], i: number, state: OptionState): OptionStep {
  const equals = text.indexOf('=');
  const name = text.slice(2, equals === -1 ? undefined : equals);
  if (spec.longNoCommand?.includes(name)) return 'no-command';
  if (spec.longFlags?.includes(name)) return equals === -1 ? i + 1 : 'unknown';
  if (spec.longOptional?.includes(name)) return i + 1;
  if (!spec.longValued?.includes(name)) return 'unknown';
  const value = equals === -1 ? argv[i + 1] : { ...argv[i]!, text: text.slice(equals + 1) };
  if (!value) return 'unknown';
  noteValue(spec, name, value, state);
  return equals === -1 ? i + 2 : i + 1;
}

function shortOptions(spec: WrapperSpec, text: string, argv: readonly Word[], i: number, state: OptionState): OptionStep {
  if (spec.numericOption && /^-\d+$/.test(text)) return i + 1;
  for (let at = 1; at < text.length; at++) {
    const letter = text[at]!;
    if (spec.noCommand?.includes(letter)) return 'no-command';
    if (spec.flags?.includes(letter)) continue;
    if (spec.optionalValued?.includes(letter)) return i + 1;
    if (!spec.valued?.includes(letter)) return 'unknown';
    const attached = text.slice(at + 1);
    const value = attached ? { ...argv[i]!, text: attached } : argv[i + 1];
    if (!value) return 'unknown';
    noteValue(spec, letter, value, state);
    return attached ? i + 1 : i + 2;
  }
  return i + 1;
}

function noteValue(spec: WrapperSpec, option: string, value: Word, state: OptionState): void {
  if (spec.chdir?.includes(option)) state.chdir = value;
  if (spec.writes?.includes(option)) state.writes.push(value);
}
