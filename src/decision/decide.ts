/**
 * The one decision function: a tool call, as the agent described it, judged by a policy. Used by the
 * relay, `check`, `exec` and the start-up rehearsal alike. Pure: the parser, the canonicaliser, the
 * file-existence probe and the grants are handed in; nothing here touches Node.
 */
import { NO_WORKSPACE, type CallFacts } from '../core/facts.js';
import type { FileExists } from '../facts/argument-facts.js';
import { extractFacts } from '../facts/extract.js';
import type { PathCanonicalizer } from '../facts/paths.js';
import type { TreeLister } from '../facts/tree-facts.js';
import type { GitHistoryLister } from '../facts/git-history-facts.js';
import type { GitRevisionResolver } from '../facts/git-object-facts.js';
import type { ToolCallState } from '../facts/tool-call.js';
import { evaluate, type Evaluation, type GrantLookup } from '../policy/evaluate.js';
import type { PolicySet } from '../policy/types.js';
import type { ShellAnalyzer } from '../shell/types.js';

export interface DecisionInputs {
  readonly policy: PolicySet;
  /** The session's workspace (absolute); undefined for a session the broker never saw start. */
  readonly workspace: string | undefined;
  readonly home: string;
  readonly agent: string | undefined;
  readonly shell: ShellAnalyzer;
  readonly canonicalize: PathCanonicalizer;
  readonly fileExists: FileExists;
  /** What recursive readers reach (`grep -r`); absent: their reads are unresolvable. */
  readonly listTree?: TreeLister | undefined;
  /** What `git show ID` names; absent: such revisions are unresolvable. */
  readonly resolveGitRevision?: GitRevisionResolver | undefined;
  /** The files `git log -p` / `git show` / `git diff` may print; absent: such commands are unresolvable. */
  readonly listGitHistory?: GitHistoryLister | undefined;
  readonly grants?: GrantLookup | undefined;
  /** Where the agent's persistent shell may be (see session/shell-state.ts); absent: the workspace. */
  readonly shellCwd?: readonly string[] | null | undefined;
}

export interface Judged {
  readonly facts: CallFacts;
  readonly evaluation: Evaluation;
}

export function decide(call: ToolCallState, inputs: DecisionInputs): Judged {
  const { home, agent, shell, canonicalize, fileExists, listTree, resolveGitRevision, listGitHistory, shellCwd } = inputs;
  const facts = extractFacts(call, { workspace: inputs.workspace ?? NO_WORKSPACE, home, agent, shell, canonicalize, fileExists, listTree, resolveGitRevision, listGitHistory, shellCwd });
  return { facts, evaluation: decideFacts(facts, inputs) };
}

/** The same judgement for facts already extracted (a grant recorded since may now cover them). */
export function decideFacts(facts: CallFacts, inputs: Pick<DecisionInputs, 'policy' | 'home' | 'canonicalize' | 'grants'>): Evaluation {
  // The inputs are the evaluator's options as they are (home, canonicalize, grants): no copy per decision.
  return evaluate(inputs.policy, facts, inputs);
}
