/**
 * The option grammar of a program that runs another program given in its arguments: which options
 * take values, where the command starts, what the options do to it. Letters are short options,
 * names long ones. An option a spec does not list makes the line unresolvable.
 */
import type { Word } from './words.js';

export interface WrapperSpec {
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
  /** Options meaning "no command follows" (sudo -l, command -v, taskset -p). */
  readonly noCommand?: string;
  readonly longNoCommand?: readonly string[];
  /**
   * The real parser takes a unique prefix of a long option (getopt_long): the long lists above are
   * then all of the program's long options, and an ambiguous prefix is unresolvable.
   */
  readonly abbreviations?: boolean;
  /** `nice -5`: a dash and digits is an option. */
  readonly numericOption?: boolean;
  /** Every word starting with `-` before the command is an option without a separate value (valgrind). */
  readonly anyOption?: boolean;
  /** Operands before the command (timeout's DURATION, chroot's NEWROOT). */
  readonly leadingOperands?: number;
  /** The leading operands are files the program creates when missing (flock's lock file). */
  readonly leadingOperandsWritten?: boolean;
  readonly acceptsAssignments?: boolean;
  /** Reported as a command of its own (full argv) besides the inner command (privilege, remote, container). */
  readonly reportSelf?: boolean;
  /** Options that set the inner command's working directory. */
  readonly chdir?: readonly string[];
  /** The inner command runs somewhere else (a new root, a login shell's home): its cwd is unknown. */
  readonly movesCwd?: boolean;
  /** Options after which the inner command's cwd is unknown (`sudo -i`, `unshare -R`). */
  readonly forgetsCwd?: readonly string[];
  /** Options whose value is a file the wrapper writes. */
  readonly writes?: readonly string[];
  /** Options whose value is a file the wrapper reads (`xargs -a FILE`: its words become arguments). */
  readonly reads?: readonly string[];
  /** Options whose value is shell code the program runs (`runuser -c`). */
  readonly code?: readonly string[];
  /** Options whose value is an environment assignment for the command (`strace -E NAME=V`). */
  readonly environment?: readonly string[];
  /** Options that run a program or code we do not analyse (`fakeroot --faked BIN`, `gdb -ex`). */
  readonly opaque?: readonly string[];
  /** Inner arguments are supplied at run time (xargs). */
  readonly suppliesArguments?: boolean;
  /**
   * What the words after the options and leading operands are: the command's argv (default), one
   * word of shell code (`sg GROUP CMD`), or words joined with spaces into shell code (`ssh HOST CMD…`).
   */
  readonly operands?: 'argv' | 'code' | 'joined-code' | 'files-written';
  /** Options that make the operands an argv although `operands` says code (`watch -x`). */
  readonly argvWith?: readonly string[];
  /** The code after `-c` / `--command` right after the leading operands (`flock FILE -c CMD`). */
  readonly trailingCode?: boolean;
  /**
   * Without a command, the program runs a shell that reads its commands from standard input: always
   * (true), or when one of these options is given (`sudo -s`).
   */
  readonly shellWithoutCommand?: true | readonly string[];
  /** Options may follow the leading operands too (`ssh HOST -v CMD`). */
  readonly optionsAfterOperands?: boolean;
  /** Option values that make the program run something we do not analyse (`ssh -o ProxyCommand=…`). */
  readonly opaqueValues?: Readonly<Record<string, RegExp>>;
  /** Code options whose code is split like shell words but not exactly (`env -S`): analysed, unresolvable. */
  readonly approximateCode?: readonly string[];
  /** The operands are files the program writes; none given: `defaultWrite` (`script` → ./typescript). */
  readonly defaultWrite?: string;
  /** The inner command does not run here as analysed (a remote host): analysed, but unresolvable. */
  readonly elsewhere?: string;
  /** The first operand names a subcommand; only those listed run a command, others are ordinary. */
  readonly subcommands?: Readonly<Record<string, WrapperSpec>>;
}

/** What peeling one wrapper gives; produced by wrappers.ts and by runner-parsers.ts for the programs no table describes. */
export type PeelResult =
  | { readonly kind: 'not-a-wrapper' }
  | { readonly kind: 'unresolvable'; readonly reason: string }
  | Peeled;

export interface Peeled {
  readonly kind: 'inner';
  readonly wrapper: string;
  readonly reportSelf: boolean;
  /** What runs: the inner argv, or shell code. */
  readonly run: { readonly type: 'argv'; readonly words: readonly Word[] } | { readonly type: 'code'; readonly code: Word };
  readonly assignments: readonly Word[];
  readonly chdir: Word | undefined;
  /** The inner command's working directory is not known (a new root, another host, a login home). */
  readonly forgetsCwd: boolean;
  /** Files the wrapper itself writes (`strace -o`) or reads (`xargs -a`). */
  readonly files: readonly { readonly word: Word; readonly access: 'read' | 'write' }[];
  readonly suppliesArguments: boolean;
  /** Reasons the line stays unresolvable although the inner command is analysed (remote, approximate). */
  readonly notes: readonly string[];
}
