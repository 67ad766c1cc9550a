import { performance } from 'node:perf_hooks';
import { decisionEvent, type AnswerSource, type AuditEvent, type DecisionExtra, type Outcome, type Verdict } from '../audit/event.js';
import type { AuditSink } from '../audit/sink.js';
import type { CallFacts } from '../core/facts.js';
import type { Evaluation } from '../policy/evaluate.js';
import { ACP, type PermissionOutcome } from '../protocol/acp.js';
import { encode, RPC_ERRORS, type RpcId } from '../protocol/jsonrpc.js';

/** A call the broker judged, as the audit log records it. */
export interface JudgedCall {
  readonly sessionId: string | undefined;
  readonly toolCallId: string | undefined;
  readonly facts: CallFacts;
  readonly evaluation: Evaluation;
  /** `performance.now()` when the request arrived. */
  readonly started: number;
}

/** How a judged call ended, for its audit line. */
export interface Settled {
  readonly decision: Verdict;
  readonly outcome: Outcome;
  readonly source: AnswerSource;
  readonly optionId?: string | undefined;
  /** The method, when not a permission request (an enforced fs/terminal call). */
  readonly method?: string;
  readonly extra?: DecisionExtra;
}

export interface OutboxDeps {
  readonly toAgent: (bytes: Buffer) => void;
  readonly toClient: (bytes: Buffer) => void;
  readonly audit: AuditSink;
  /** Where audit work runs: at once by default, or queued by the relay until the answer in hand has left. */
  readonly deferAudit?: ((work: () => void) => void) | undefined;
  readonly clock: () => Date;
  readonly newDecisionId: () => string;
  /** Told every final verdict on a judged call (the session's shell state follows allowed commands). */
  readonly onVerdict?: (call: JudgedCall, decision: Verdict) => void;
}

/**
 * The only writer of the broker: answers and refusals to the agent, lines to the client, and audit
 * records — so that deferred or not, audit events keep their order.
 */
export class Outbox {
  constructor(private readonly deps: OutboxDeps) {}

  get clock(): () => Date {
    return this.deps.clock;
  }

  get newDecisionId(): () => string {
    return this.deps.newDecisionId;
  }

  toAgent(bytes: Buffer): void {
    this.deps.toAgent(bytes);
  }

  toClient(bytes: Buffer): void {
    this.deps.toClient(bytes);
  }

  answerAgent(id: RpcId, outcome: PermissionOutcome): void {
    this.deps.toAgent(encode({ jsonrpc: '2.0', id, result: { outcome } }));
  }

  errorToAgent(id: RpcId, error: { code: number; message: string; data?: unknown }): void {
    this.deps.toAgent(encode({ jsonrpc: '2.0', id, error }));
  }

  errorToClient(id: RpcId, error: { code: number; message: string }): void {
    this.deps.toClient(encode({ jsonrpc: '2.0', id, error }));
  }

  /** An fs/terminal call refused by policy (or because it cannot be checked). */
  refuseEnforced(id: RpcId, method: string, reason: string, ruleId?: string): void {
    this.errorToAgent(id, { code: RPC_ERRORS.deniedByPolicy, message: `${method} denied by acp-broker policy: ${reason}`, data: { ruleId: ruleId ?? null, reason } });
  }

  /** Withdraw a dialog the client is showing for the agent's request `id`. */
  withdrawFromClient(id: RpcId): void {
    this.deps.toClient(encode({ jsonrpc: '2.0', method: ACP.cancelRequest, params: { requestId: id } }));
  }

  /** One audit line for a call the broker judged. */
  record(call: JudgedCall, how: Settled): void {
    // When it happened and how long it took are taken now; the event is built when the audit work runs.
    const time = this.deps.clock();
    const latencyMs = performance.now() - call.started;
    this.deps.onVerdict?.(call, how.decision);
    // One closure per decision (not one for the event and one for its write): this runs for every request.
    this.run(() => this.deps.audit.write(decisionEvent({
      time, decisionId: this.deps.newDecisionId(), method: how.method ?? ACP.requestPermission,
      sessionId: call.sessionId, toolCallId: call.toolCallId, facts: call.facts, evaluation: call.evaluation,
      decision: how.decision, outcome: how.outcome, source: how.source, optionId: how.optionId, latencyMs, extra: how.extra,
    })));
  }

  /** Every audit event of the broker goes through here. */
  audit(event: () => AuditEvent): void {
    this.run(() => this.deps.audit.write(event()));
  }

  /** Audit work, deferred when the relay defers it. */
  private run(work: () => void): void {
    const defer = this.deps.deferAudit;
    if (defer) defer(work);
    else work();
  }
}

/** What the agent got, in audit terms, for an answer of this polarity, and from where: how the call was settled. */
export function settledAs(polarity: 'allow' | 'deny', outcome: PermissionOutcome, source: AnswerSource): Settled & { readonly decision: 'allow' | 'deny' | 'cancelled' } {
  if (outcome.outcome === 'cancelled') return { decision: 'cancelled', outcome: 'cancelled', source };
  return { decision: polarity, outcome: polarity === 'allow' ? 'allowed' : 'denied', optionId: outcome.optionId, source };
}
