/**
 * What fact extraction knows about the session besides the call itself. Its own module so that
 * extract.ts and the shell-call analysis it delegates to (shell-call.ts) both depend on it rather
 * than on each other.
 */
import type { ShellAnalyzer } from '../shell/types.js';
import type { FileExists } from './argument-facts.js';
import type { PathCanonicalizer } from './paths.js';
import type { GitHistoryLister } from './git-history-facts.js';
import type { GitRevisionResolver } from './git-object-facts.js';
import type { TreeLister } from './tree-facts.js';

export interface ExtractContext {
  /** Session cwd; absolute, or NO_WORKSPACE (relative paths are then unresolvable). */
  readonly workspace: string;
  readonly home: string;
  readonly agent: string | undefined;
  readonly shell: ShellAnalyzer;
  readonly canonicalize: PathCanonicalizer;
  /**
   * The directories the session's own shell may be in, for agents whose shell keeps its directory
   * between calls (session/shell-state.ts): undefined when the call starts a fresh shell, null when not known.
   */
  readonly shellCwd?: readonly string[] | null;
  /** For deny-only facts: whether an argument of an unmodelled program names an existing file. */
  readonly fileExists: FileExists;
  /** What a recursive reader (`grep -r`, `rg`) reaches under a directory; absent: such a read is unresolvable. */
  readonly listTree?: TreeLister | undefined;
  /** What a revision names in a repository (`git show ID` prints a blob whole); absent: such a revision is unresolvable. */
  readonly resolveGitRevision?: GitRevisionResolver | undefined;
  /** The files in the trees `git log -p` / `git show` / `git diff` may print; absent: such a command is unresolvable. */
  readonly listGitHistory?: GitHistoryLister | undefined;
}
