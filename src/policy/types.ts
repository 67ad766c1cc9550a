import type { Access, ToolKind } from '../core/facts.js';
import type { Decision } from '../core/decision.js';
import type { SourceLocation } from '../core/errors.js';
import type { CommandPattern } from '../shell/command-pattern.js';

/** Where a policy came from; strictest wins across layers, and only `managed` asks beat grants. */
export type Layer = 'managed' | 'user' | 'project';

export type Enforcement = 'enforce' | 'warn' | 'shadow';


/** What `ask` becomes when no human can answer. */
export type NonInteractiveFallback = 'deny' | 'cancel';

/** A glob or a /regex/flags, compiled once. */
export interface TextMatcher {
  readonly source: string;
  test(value: string): boolean;
}

/**
 * A path glob; `${workspace}` patterns are compiled per workspace on first use. A pattern matches
 * when it matches as written or with its literal leading directories canonicalised (either counts).
 */
export interface PathMatcher {
  readonly source: string;
  /** `forAllow`: for an allow rule, only the anchor's root is canonicalised (links below it may be the agent's). */
  test(path: string, context: PathContext, forAllow?: boolean): boolean;
  /**
   * For a path fact that is a bash glob: `some` — some path it may expand to matches (deny, ask);
   * `every` — every such path does (allow; conservative: false when unsure).
   */
  testGlob(glob: string, context: PathContext, mode: 'some' | 'every'): boolean;
}

/** One evaluation's view of the file system (path-context.ts makes a fresh one per evaluation). */
export interface PathContext {
  readonly workspace: string;
  readonly home: string;
  /**
   * Where an absolute path really leads (symlinks resolved as the kernel does; as written when it
   * cannot be), for the anchors of patterns. Absent: patterns are matched as written only. Within
   * one context the same path gets the same answer, so what is derived from it may be kept.
   */
  readonly canonicalize?: (absolutePath: string) => string;
}

export interface InputCondition {
  /** Dotted field path in rawInput, split. */
  readonly field: readonly string[];
  readonly fieldSource: string;
  readonly matcher: TextMatcher;
}

/** Every listed condition must hold; a list means "any of". Undefined means "not constrained". */
export interface RuleConditions {
  readonly kind?: readonly ToolKind[];
  readonly tool?: readonly TextMatcher[];
  readonly title?: readonly TextMatcher[];
  readonly agent?: readonly TextMatcher[];
  readonly paths?: readonly PathMatcher[];
  readonly access?: readonly Access[];
  readonly command?: readonly CommandPattern[];
  readonly url?: readonly TextMatcher[];
  readonly input?: readonly InputCondition[];
}

/** A set of facts written in a policy file, used by `examples`. */
export interface ExampleFacts {
  readonly kind?: ToolKind;
  readonly tool?: string;
  readonly title?: string;
  readonly agent?: string;
  readonly paths?: readonly string[];
  readonly access?: Access;
  readonly command?: string;
  readonly url?: string;
  readonly input?: unknown;
  readonly location: SourceLocation;
}

export interface Rule {
  readonly id: string;
  readonly decision: Decision;
  readonly reason: string | undefined;
  readonly enforcement: Enforcement;
  readonly match: RuleConditions;
  readonly examples: { readonly match: readonly ExampleFacts[]; readonly notMatch: readonly ExampleFacts[] };
  readonly location: SourceLocation;
  readonly layer: Layer;
  readonly file: string;
}

export interface PolicyFile {
  readonly file: string;
  readonly layer: Layer;
  readonly default: Decision;
  readonly nonInteractive: NonInteractiveFallback;
  /** Keep the agent's own allow_always/reject_always options when escalating (default: replace them). */
  readonly keepAgentAlwaysOptions: boolean;
  /** Where "always" answers apply: the session's project (default) or every project. */
  readonly grantScope: 'project' | 'global';
  /** How long a new grant lasts; unset means until revoked. */
  readonly grantTtlMs?: number;
  /** Session modes the policy forbids (see modes.ts); undefined when the file has no `modes`. */
  readonly modes?: ModeRules;
  /** What to do when the agent runs an edit or a command without asking (default: warn). */
  readonly unprompted?: UnpromptedAction;
  readonly rules: readonly Rule[];
}

/** What `ask` becomes without a human: strictest across layers, so any layer asking for deny gets deny. */
export function nonInteractiveFallback(policy: PolicySet): NonInteractiveFallback {
  return policy.files.length === 0 || policy.files.some((f) => f.nonInteractive === 'deny') ? 'deny' : 'cancel';
}

/** Session modes a policy file forbids (the rules are applied by modes.ts). */
export interface ModeRules {
  /** Mode ids a session may never be in, as the agents spell them. */
  readonly deny: readonly string[];
  /** Where to move a session that is in a forbidden mode: the first of these it offers. */
  readonly prefer: readonly string[];
}

/** What a policy does about agents that act without asking: report it, or stop the turn. */
export type UnpromptedAction = 'warn' | 'stop';

/** All layers in force, in order managed → user → project. */
export interface PolicySet {
  readonly files: readonly PolicyFile[];
}
