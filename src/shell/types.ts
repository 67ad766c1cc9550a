/**
 * The contract of the shell analysis module. Everything here is pure data; the analyzer turns one
 * shell line into what the shell would actually run, so that rules match behaviour, not strings.
 */

/** One simple command the shell would run, after unwrapping wrappers (sudo, env, timeout, bash -c …). */
export interface SimpleCommand {
  /** Words as the shell sees them after quote removal. argv[0] is the program as written (may be a path). */
  readonly argv: readonly string[];
  /** basename of argv[0] (`/usr/bin/curl` → `curl`). */
  readonly program: string;
  /** Absolute directory the command runs in (the context cwd, changed by earlier `cd` in the same line). */
  readonly cwd: string;
  /** Leading NAME=value assignments, as written. */
  readonly assignments: readonly string[];
  /** Wrappers that were peeled off to reach this command, outermost first (e.g. ['sudo', 'timeout']). */
  readonly wrappers: readonly string[];
  /** The source text of this command in the line (for explanations). */
  readonly text: string;
  /** The home directory `~` meant when this was analysed (pattern words like `~` compare against it). */
  readonly home?: string;
  /**
   * Some argument is only known at run time: an expansion or substitution (`rm -rf $DIR`: argv holds
   * the text as written, `$DIR`), or arguments supplied by `xargs` / `find -exec … {}`.
   */
  readonly dynamicArguments?: boolean;
}

export interface Redirection {
  /** Absolute target path, resolved against the cwd in force at that point of the line. */
  readonly path: string;
  /** `delete` only for files a program removes through its arguments (`rm f`, `mv f g`). */
  readonly access: 'read' | 'write' | 'delete';
  /** The operator as written: '>', '>>', '>|', '&>', '<', …; for a file a program opens through its arguments, the program. */
  readonly operator: string;
  /**
   * The target as written has unquoted glob characters (`*`, `?`, `[…]`): bash expands it against
   * the file system, so `path` is a pattern (resolved against the cwd), not one file.
   */
  readonly glob?: boolean;
  /**
   * The target joined to the cwd with its `..` kept, when it has any (`link/../x`): the kernel
   * applies `..` after following symlinks, so the path facts are resolved from this one.
   */
  readonly kernelPath?: string;
  /**
   * A glob argument of a program whose argument roles are not modelled (`python3 x.py .en?`): it
   * may name a file the program opens, so deny rules see it; it never needs to be allowed.
   */
  readonly denyOnly?: boolean;
  /**
   * The program reads the whole tree when the path is a directory (`grep -r`, `rg`): the facts layer
   * lists what is under it, so deny rules see `.env` in `grep -r x .`.
   */
  readonly recursive?: TreeRead;
}

/** How a recursive reader walks a tree: into symlinks found inside it (`grep -R`, `rg -L`), into hidden entries (grep, `rg --hidden`). */
export interface TreeRead {
  readonly follow: boolean;
  readonly hidden: boolean;
}

export interface CommandAnalysis {
  readonly commands: readonly SimpleCommand[];
  readonly redirections: readonly Redirection[];
  /**
   * Reasons the line cannot be resolved statically (eval, a variable as a command name, a parse error,
   * invisible characters, …). Non-empty means: an allow rule can never allow this line.
   */
  readonly unresolvable: readonly string[];
  /**
   * The directory the shell is in after the line, as far as its top-level `cd`s tell (a `cd` in a
   * subshell, pipeline part or background job does not move it); null when not known statically.
   */
  readonly finalCwd?: string | null;
}

export interface ShellContext {
  /** Absolute directory the line starts in (the session cwd, or a command's own cwd). */
  readonly cwd: string;
  /** Absolute home directory, for `~`. */
  readonly home: string;
  /**
   * The line starts in a directory that is not known (`cwd` is only the last one known): whatever
   * runs before an absolute `cd` is unresolvable, and relative paths resolve against `cwd` only for deny rules.
   */
  readonly cwdUnknown?: boolean;
}

export interface ShellAnalyzer {
  analyze(line: string, context: ShellContext): CommandAnalysis;
}
