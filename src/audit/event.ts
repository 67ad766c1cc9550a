import type { Decision } from '../core/decision.js';
import type { DecisionSource, Evaluation } from '../policy/evaluate.js';
import type { CallFacts } from '../core/facts.js';

/** Where the final answer came from. */
export type AnswerSource =
  | DecisionSource
  | { readonly type: 'fallback'; readonly fallback: 'deny' | 'cancel' }
  | { readonly type: 'timeout'; readonly fallback: 'deny' | 'cancel' }
  | { readonly type: 'client' }
  | { readonly type: 'cancelled'; readonly by: CancelledBy }
  | { readonly type: 'error'; readonly message: string };

/** What the agent finally got. */
/** What ended a request nobody decided: the editor, the agent, the broker's own shutdown, or the editor leaving. */
export type CancelledBy = 'session/cancel' | '$/cancel_request' | 'shutdown' | 'client-gone';

export type Outcome = 'allowed' | 'denied' | 'cancelled' | 'escalated' | 'passed';

/** One decision, one line of the audit log. Versioned: readers check `v`. Secrets are masked when the line is written (sink.ts). */
export interface AuditEventV1 {
  readonly v: 1;
  /** `mode`: a session mode refused, left or switched by the broker (see broker/modes.ts). */
  readonly event: 'decision' | 'unprompted' | 'problem' | 'mode';
  readonly time: string;
  readonly decisionId?: string;
  readonly method?: string;
  readonly sessionId?: string;
  readonly agent?: string;
  readonly toolCallId?: string;
  readonly kind?: string;
  /** The session mode a `mode` event is about. */
  readonly mode?: string;
  readonly tool?: string;
  readonly title?: string;
  readonly command?: string;
  readonly items?: readonly { item: string; decision: Decision | null; rules: string[]; grant?: string }[];
  /** The policy's decision before fallbacks. */
  readonly policyDecision?: Decision;
  readonly outcome?: Outcome;
  readonly decision?: 'allow' | 'deny' | 'ask' | 'cancelled';
  readonly source?: AnswerSource;
  readonly reason?: string;
  readonly optionId?: string;
  /** Grants recorded by this answer. */
  readonly grants?: readonly string[];
  readonly wouldHave?: readonly { ruleId: string; layer: string; decision: Decision; enforcement: string }[];
  readonly unresolvable?: readonly string[];
  readonly input?: unknown;
  readonly latencyMs?: number;
  readonly message?: string;
}

/**
 * The event for one judged call. Built in one layout, every optional field present and undefined
 * when absent (JSON.stringify leaves those out, so the line is the same): one object shape for all
 * calls keeps this per-decision step monomorphic. `extra` (rare: timeouts, grants) is laid over it.
 */
export function decisionEvent(input: {
  time: Date; decisionId: string; method: string; sessionId: string | undefined; toolCallId: string | undefined;
  facts: CallFacts; evaluation: Evaluation; decision: AuditEventV1['decision']; outcome: Outcome; source: AnswerSource;
  optionId: string | undefined; latencyMs: number; extra?: Partial<AuditEventV1> | undefined;
}): AuditEventV1 {
  const { facts, evaluation } = input;
  const event: AuditEventV1 = {
    v: 1, event: 'decision', time: input.time.toISOString(), decisionId: input.decisionId, method: input.method,
    sessionId: input.sessionId,
    agent: facts.agent,
    toolCallId: input.toolCallId,
    kind: facts.kind,
    tool: facts.tool,
    title: facts.title,
    command: facts.shellLine,
    items: evaluation.items.map((i) => ({
      item: i.label, decision: i.decision ?? null, rules: i.matches.map((m) => m.ruleId), grant: i.grant?.id,
    })),
    policyDecision: evaluation.decision,
    decision: input.decision,
    outcome: input.outcome,
    source: input.source,
    reason: evaluation.reason,
    optionId: input.optionId,
    wouldHave: evaluation.wouldHave.length > 0
      ? evaluation.wouldHave.map((m) => ({ ruleId: m.ruleId, layer: m.layer, decision: m.decision, enforcement: m.enforcement }))
      : undefined,
    unresolvable: evaluation.unresolvable.length > 0 ? evaluation.unresolvable : undefined,
    input: facts.input,
    latencyMs: Math.round(input.latencyMs * 1000) / 1000,
  };
  return input.extra ? { ...event, ...input.extra } : event;
}
