/**
 * Classic wrappers (privilege, environment, timing, scheduling) and shell precommand modifiers.
 * Long option lists of specs with `abbreviations` are complete (the programs' `--help`), so a
 * unique prefix is read as the option; elsewhere a prefix is an unknown option (unresolvable).
 */
import type { WrapperSpec } from './wrapper-spec.js';

export const CLASSIC_WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    flags: 'AbBEHiknPSs', valued: 'ugprtTUCDRac', optionalValued: 'h', noCommand: 'elvVK', acceptsAssignments: true, reportSelf: true, abbreviations: true,
    longFlags: ['login', 'shell', 'set-home', 'non-interactive', 'reset-timestamp', 'stdin', 'background', 'askpass', 'preserve-groups', 'bell'],
    longValued: ['user', 'group', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'close-from', 'chdir', 'chroot', 'auth-type', 'login-class'],
    longOptional: ['preserve-env'],
    longNoCommand: ['edit', 'list', 'validate', 'version', 'help', 'remove-timestamp'],
    chdir: ['D', 'chdir'],
    // A login shell starts in the target user's home; a chroot moves `/`.
    forgetsCwd: ['i', 'login', 'R', 'chroot'],
    shellWithoutCommand: ['s', 'shell', 'i', 'login'],
  },
  doas: { flags: 'ns', valued: 'uC', noCommand: 'L', reportSelf: true, shellWithoutCommand: ['s'] },
  pkexec: { longFlags: ['disable-internal-agent', 'keep-cwd'], longValued: ['user'], longNoCommand: ['version', 'help'], reportSelf: true, movesCwd: true },
  env: {
    flags: '0iv', valued: 'uCS', acceptsAssignments: true, chdir: ['C', 'chdir'], abbreviations: true,
    longFlags: ['ignore-environment', 'null', 'debug', 'list-signal-handling'],
    longValued: ['unset', 'chdir', 'split-string'],
    longOptional: ['default-signal', 'ignore-signal', 'block-signal'],
    longNoCommand: ['help', 'version'],
    code: ['S', 'split-string'],
    approximateCode: ['S', 'split-string'],
  },
  timeout: {
    flags: 'v', valued: 'sk', leadingOperands: 1, abbreviations: true,
    longFlags: ['preserve-status', 'foreground', 'verbose'], longValued: ['signal', 'kill-after'], longNoCommand: ['help', 'version'],
  },
  nice: { valued: 'n', longValued: ['adjustment'], numericOption: true, longNoCommand: ['help', 'version'], abbreviations: true },
  nohup: { longNoCommand: ['help', 'version'], abbreviations: true },
  stdbuf: { valued: 'ioe', longValued: ['input', 'output', 'error'], longNoCommand: ['help', 'version'], abbreviations: true },
  command: { flags: 'p', noCommand: 'vV' },
  builtin: {},
  exec: { flags: 'cl', valued: 'a' },
  time: {
    flags: 'pavq', valued: 'of', writes: ['o', 'output'], abbreviations: true,
    longFlags: ['portability', 'append', 'verbose', 'quiet'], longValued: ['output', 'format'], longNoCommand: ['help', 'version'],
  },
  ionice: {
    flags: 't', valued: 'cn', noCommand: 'pPuhV', abbreviations: true,
    longFlags: ['ignore'], longValued: ['class', 'classdata'], longNoCommand: ['pid', 'pgid', 'uid', 'help', 'version'],
  },
  coproc: {},
  setsid: { flags: 'cfw', longFlags: ['ctty', 'fork', 'wait'], longNoCommand: ['help', 'version'], abbreviations: true },
  xargs: {
    flags: '0rtpxo', valued: 'ILnPsdEa', optionalValued: 'ile', suppliesArguments: true, abbreviations: true, reads: ['a', 'arg-file'],
    longFlags: ['null', 'no-run-if-empty', 'verbose', 'interactive', 'exit', 'open-tty'],
    longValued: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    longOptional: ['replace', 'eof', 'max-lines'],
    longNoCommand: ['help', 'version', 'show-limits'],
  },
  // zsh precommand modifiers and `repeat N CMD` (codex runs `zsh -lc` on some systems).
  noglob: {},
  nocorrect: {},
  repeat: { leadingOperands: 1 },
};
