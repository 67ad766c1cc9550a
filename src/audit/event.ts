/**
 * The audit log's events: one tagged union, each kind built by its own constructor here and nowhere
 * else. The constructors fix each line's key order, so a kind's JSON lines keep one layout. Secrets
 * are masked when the line is written (sink.ts).
 */
import type { Decision } from '../core/decision.js';
import type { DecisionSource, Evaluation } from '../policy/evaluate.js';
import type { CallFacts } from '../core/facts.js';

/** Where the final answer came from. A human's answer names its channel (`client` is the editor). */
export type AnswerSource =
  | DecisionSource
  | { readonly type: 'fallback'; readonly fallback: 'deny' | 'cancel' }
  | { readonly type: 'timeout'; readonly fallback: 'deny' | 'cancel' }
  | { readonly type: 'client' }
  /** Escalated to the approvals daemon alone (no editor to ask: `exec`). */
  | { readonly type: 'daemon' }
  | { readonly type: 'desktop' }
  | { readonly type: 'web' }
  | { readonly type: 'terminal' }
  | { readonly type: 'cancelled'; readonly by: CancelledBy }
  | { readonly type: 'error'; readonly message: string };

/** What ended a request nobody decided: the editor, the agent, the broker's own shutdown, or the editor leaving. */
export type CancelledBy = 'session/cancel' | '$/cancel_request' | 'shutdown' | 'client-gone';

/** What the agent finally got. */
export type Outcome = 'allowed' | 'denied' | 'cancelled' | 'escalated' | 'passed';

export type Verdict = 'allow' | 'deny' | 'ask' | 'cancelled';

interface ItemRecord { item: string; decision: Decision | null; rules: string[]; grant?: string }
interface WouldHaveRecord { ruleId: string; layer: string; decision: Decision; enforcement: string }

/** One judged call (or one the broker could not judge, or cancelled while held): its line in the log. */
export interface DecisionEvent {
  readonly v: 1;
  readonly event: 'decision';
  readonly time: string;
  readonly decisionId: string;
  readonly method: string;
  readonly sessionId?: string | undefined;
  readonly agent?: string | undefined;
  readonly toolCallId?: string | undefined;
  readonly kind?: string | undefined;
  readonly tool?: string | undefined;
  readonly title?: string | undefined;
  readonly command?: string | undefined;
  readonly items?: readonly ItemRecord[];
  /** The policy's decision before fallbacks. */
  readonly policyDecision?: Decision;
  readonly decision: Verdict;
  readonly outcome: Outcome;
  readonly source: AnswerSource;
  readonly reason?: string | undefined;
  readonly optionId?: string | undefined;
  /** Grants recorded by this answer. */
  readonly grants?: readonly string[];
  readonly wouldHave?: readonly WouldHaveRecord[] | undefined;
  readonly unresolvable?: readonly string[] | undefined;
  readonly input?: unknown;
  readonly latencyMs?: number;
}

/** A tool call the agent ran without asking. */
export interface UnpromptedEvent {
  readonly v: 1;
  readonly event: 'unprompted';
  readonly time: string;
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly kind: string;
  readonly title?: string;
  readonly reason: string;
}

/** A session mode refused, left or switched by the broker (see broker/mode-guard.ts). */
export interface ModeEvent {
  readonly v: 1;
  readonly event: 'mode';
  readonly time: string;
  readonly sessionId?: string;
  readonly mode: string;
  readonly decision: 'allow' | 'deny';
  readonly reason: string;
}

/** Something wrong with the broker's own state (a broken grants store, …). */
export interface ProblemEvent {
  readonly v: 1;
  readonly event: 'problem';
  readonly time: string;
  readonly reason: string;
  readonly message: string;
}

export type AuditEvent = DecisionEvent | UnpromptedEvent | ModeEvent | ProblemEvent;

/**
 * An audit line as a reader sees it: any kind, every field optional. For code that reads the log
 * (exec's summary, tests); writers use the union.
 */
export type AuditRecord = { readonly v: 1; readonly event: AuditEvent['event'] } & Partial<Omit<DecisionEvent, 'v' | 'event'>>
  & Partial<Omit<UnpromptedEvent, 'v' | 'event'>> & Partial<Omit<ModeEvent, 'v' | 'event' | 'decision'>> & Partial<Omit<ProblemEvent, 'v' | 'event'>>;

/** What a rare answer adds to a decision line (timeouts, grants). */
export interface DecisionExtra {
  readonly reason?: string;
  readonly grants?: readonly string[];
}

/**
 * The event for one judged call. Built in one layout, every optional field present and undefined
 * when absent (JSON.stringify leaves those out, so the line is the same): one object shape for all
 * calls keeps this per-decision step monomorphic. `extra` (rare: timeouts, grants) is laid over it.
 */
export function decisionEvent(input: {
  time: Date; decisionId: string; method: string; sessionId: string | undefined; toolCallId: string | undefined;
  facts: CallFacts; evaluation: Evaluation; decision: Verdict; outcome: Outcome; source: AnswerSource;
  optionId: string | undefined; latencyMs: number; extra?: DecisionExtra | undefined;
}): DecisionEvent {
  const { facts, evaluation } = input;
  const event: DecisionEvent = {
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

/** A permission request the broker could not judge at all, answered with the non-interactive fallback. */
export function unjudgedFallbackEvent(input: {
  time: Date; decisionId: string; sessionId: string | undefined; decision: Verdict; outcome: Outcome; fallback: 'deny' | 'cancel';
}): DecisionEvent {
  return {
    v: 1, event: 'decision', time: input.time.toISOString(), decisionId: input.decisionId,
    method: 'session/request_permission', ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    decision: input.decision, outcome: input.outcome, source: { type: 'fallback', fallback: input.fallback },
    reason: 'the request could not be evaluated; non-interactive fallback applied',
  };
}

/** A permission request cancelled while the broker held it (before its policy had loaded). */
export function heldCancelledEvent(input: { time: Date; decisionId: string; sessionId: string; by: CancelledBy }): DecisionEvent {
  return {
    v: 1, event: 'decision', time: input.time.toISOString(), decisionId: input.decisionId,
    method: 'session/request_permission', sessionId: input.sessionId, decision: 'cancelled', outcome: 'cancelled',
    source: { type: 'cancelled', by: input.by }, reason: `cancelled by ${input.by} while the broker held it`,
  };
}

export function unpromptedEvent(input: { time: Date; sessionId: string; toolCallId: string; kind: string; title: string | undefined }): UnpromptedEvent {
  return {
    v: 1, event: 'unprompted', time: input.time.toISOString(), sessionId: input.sessionId, toolCallId: input.toolCallId, kind: input.kind,
    ...(input.title !== undefined ? { title: input.title } : {}),
    reason: 'the agent ran this tool call without asking for permission',
  };
}

export function modeEvent(input: { time: Date; sessionId: string | undefined; mode: string; decision: 'allow' | 'deny'; reason: string }): ModeEvent {
  return {
    v: 1, event: 'mode', time: input.time.toISOString(), ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    mode: input.mode, decision: input.decision, reason: input.reason,
  };
}

export function problemEvent(input: { time: Date; reason: string; message: string }): ProblemEvent {
  return { v: 1, event: 'problem', time: input.time.toISOString(), reason: input.reason, message: input.message };
}
