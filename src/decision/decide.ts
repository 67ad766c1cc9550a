import type { CallFacts } from '../core/facts.js';
import type { FileExists } from '../facts/argument-facts.js';
import { extractFacts } from '../facts/extract.js';
import type { PathCanonicalizer } from '../facts/paths.js';
import type { ToolCallState } from '../facts/tool-call.js';
import { evaluate, type Evaluation, type GrantLookup } from '../policy/evaluate.js';
import type { PolicySet } from '../policy/types.js';
import type { ShellAnalyzer } from '../shell/types.js';

/** Everything one decision reads besides the call itself. */
export interface DecisionInputs {
  readonly policy: PolicySet;
  readonly workspace: string;
  readonly home: string;
  readonly agent: string | undefined;
  readonly shell: ShellAnalyzer;
  readonly canonicalize: PathCanonicalizer;
  readonly fileExists: FileExists;
  readonly grants?: GrantLookup;
  readonly shellCwd?: readonly string[] | null;
}

/** The one decision: the call's facts, then the policy (and grants) on them. Pure apart from the injected fs views. */
export function decide(call: ToolCallState, inputs: DecisionInputs): { facts: CallFacts; evaluation: Evaluation } {
  const { policy, workspace, home, agent, shell, canonicalize, fileExists, grants, shellCwd } = inputs;
  const facts = extractFacts(call, { workspace, home, agent, shell, canonicalize, fileExists, ...(shellCwd !== undefined ? { shellCwd } : {}) });
  const evaluation = evaluate(policy, facts, { home, canonicalize, ...(grants ? { grants } : {}) });
  return { facts, evaluation };
}
