import type { CommandAnalysis, SimpleCommand } from '../shell/types.js';

/** ACP v1 ToolKind. */
export type ToolKind =
  | 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';

export const TOOL_KINDS: readonly ToolKind[] = [
  'read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other',
];

export type Access = 'read' | 'write' | 'delete';

export const ACCESSES: readonly Access[] = ['read', 'write', 'delete'];

/** Where a path fact was found; kept for explanations. */
export type PathOrigin = 'locations' | 'diff' | 'rawInput' | 'redirect' | 'argument' | 'fs' | 'title';

export interface PathFact {
  /** Absolute, normalised path. */
  readonly path: string;
  readonly access: Access;
  readonly origin: PathOrigin;
  /** `path` is a bash glob pattern (absolute) that expands to the files really used. */
  readonly glob?: boolean;
  /** For a glob: the files it matches at decision time were listed from the file system (each is a fact of its own). */
  readonly expanded?: boolean;
  /**
   * Seen only by deny rules: an argument of a program whose argument roles are not modelled that
   * names an existing file. It never needs to be allowed; a deny rule that matches it denies the call.
   */
  readonly denyOnly?: boolean;
}

/**
 * The workspace of a session the broker never saw start (no session/new, load or resume named it):
 * relative paths are unresolvable, and no `${workspace}` pattern or project grant matches — nothing
 * absolute starts with a NUL byte.
 */
export const NO_WORKSPACE = '\0no-workspace';

/** Everything rules may look at for one tool call. Built by facts/extract.ts; pure data. */
export interface CallFacts {
  readonly kind: ToolKind;
  readonly tool: string | undefined;
  readonly title: string | undefined;
  readonly agent: string | undefined;
  /** Session cwd (the workspace); absolute — or NO_WORKSPACE for a session the broker never saw start. */
  readonly workspace: string;
  readonly paths: readonly PathFact[];
  readonly commands: readonly SimpleCommand[];
  readonly urls: readonly string[];
  /** The raw input, for `input` conditions. */
  readonly input: unknown;
  /** The shell line analysed, if any. */
  readonly shellLine: string | undefined;
  /** The analysis of shellLine, if any. */
  readonly shell: CommandAnalysis | undefined;
  /** Why the call cannot be resolved statically; non-empty means never allowed by an allow rule. */
  readonly unresolvable: readonly string[];
}
