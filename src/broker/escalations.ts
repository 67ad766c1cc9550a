/**
 * Escalation: a request the policy leaves to a human is offered to every channel at once (the
 * editor, the approvals daemon); the first answer wins, the agent gets exactly one answer, and every
 * other channel's offer is withdrawn. Timeouts, grants from "always" answers and requests a new grant
 * covers are settled here too.
 */
import type { AnswerSource } from '../audit/event.js';
import type { AnswerChannel, ApprovalRequest, EscalationChannel, HumanAnswer, Offer, OfferedRequest, Withdrawal } from '../escalation/channel.js';
import type { ToolCallState } from '../facts/tool-call.js';
import { optionOfKind, type OfferedOption, type PermissionOutcome } from '../protocol/acp.js';
import { encode, idKey, type RpcId } from '../protocol/jsonrpc.js';
import { answerFor } from './answer.js';
import { approvalRequest } from './approval-request.js';
import { BROKER_OPTION_PREFIX, escalationOptions, offerForAgentAlways, type GrantOffer } from './escalation-options.js';
import { grantScopeFor, recordGrants } from './grant-recorder.js';
import type { Judge } from './judge.js';
import { settledAs, type JudgedCall, type Outbox } from './outbox.js';

/** A request offered to the channels, until settled. */
interface Escalated extends JudgedCall {
  /** Its key among the open ones. */
  readonly key: string;
  readonly id: RpcId;
  readonly sessionId: string;
  readonly agentOptions: readonly OfferedOption[];
  readonly offers: ReadonlyMap<string, GrantOffer>;
  readonly channels: Map<EscalationChannel, Offer>;
  settled: boolean;
}

export interface EscalationsDeps {
  readonly outbox: Outbox;
  readonly judge: Judge;
  readonly log: (message: string) => void;
  /** How long a request may wait for a human before it gets the non-interactive fallback. */
  readonly timeoutMs?: number | undefined;
}

const MAX_OPEN = 10_000;

export class Escalations {
  private readonly open = new Map<string, Escalated>();
  private sequence = 0;

  constructor(private readonly deps: EscalationsDeps, private readonly channels: readonly EscalationChannel[]) {}

  /**
   * Offer the request to every channel. With a grants store the broker's own "always" options are
   * added (and the agent's replaced); without one the editor gets the request byte-for-byte. Returns
   * the channels that took it: none, and the caller falls back.
   */
  offer(input: { call: JudgedCall & { sessionId: string }; id: RpcId; agentOptions: readonly OfferedOption[]; line: Buffer; toolCall: ToolCallState }): readonly EscalationChannel[] {
    const { call, id, agentOptions } = input;
    const { judge } = this.deps;
    if (this.channels.length === 0) return [];
    const sequence = ++this.sequence;
    let offers: ReadonlyMap<string, GrantOffer> = new Map();
    let options = agentOptions;
    let line = input.line;
    if (judge.deps.grants) {
      const policy = judge.policyFor(call.facts.workspace);
      const escalation = escalationOptions({
        agentOptions, facts: call.facts, evaluation: call.evaluation, scope: grantScopeFor(policy, call.facts.workspace),
        keepAgentAlwaysOptions: policy.files.some((f) => f.keepAgentAlwaysOptions), sequence,
      });
      try {
        const message = JSON.parse(input.line.toString('utf8')) as { params: Record<string, unknown> };
        line = encode({ ...message, params: { ...message.params, options: escalation.options } });
        offers = escalation.offers;
        options = escalation.options;
      } catch {
        // Too deeply nested to re-encode (JSON.stringify recurses): offered as sent, with only the
        // agent's own options, as a broker without grants would.
        this.deps.log('acp-broker: cannot re-encode an escalated request; forwarding it as sent');
      }
    }
    const timeoutMs = this.deps.timeoutMs;
    const deadline = timeoutMs !== undefined ? new Date(judge.deps.clock().getTime() + timeoutMs) : undefined;
    const entry: Escalated = { ...call, key: String(sequence), id, agentOptions, offers, channels: new Map(), settled: false };
    let approval: ApprovalRequest | undefined;
    const request: OfferedRequest = {
      wire: { id, line },
      approval: () => approval ??= approvalRequest({ approvalId: String(sequence), call, sessionId: call.sessionId, toolCall: input.toolCall, options, offers, deadline }),
    };
    for (const channel of this.channels) {
      const taken = channel.offer(request, {
        answer: (answer, via) => this.answered(entry, answer, via),
        lost: () => this.lost(entry, channel),
      });
      if (taken) entry.channels.set(channel, taken);
    }
    if (entry.channels.size === 0) return [];
    if (this.open.size >= MAX_OPEN) this.open.delete(this.open.keys().next().value!);
    this.open.set(entry.key, entry);
    if (timeoutMs !== undefined) setTimeout(() => this.timedOut(entry), timeoutMs).unref();
    return [...entry.channels.keys()];
  }

  /** The first answer settles the request; later ones (from any channel) change nothing. */
  private answered(entry: Escalated, answer: HumanAnswer, via: AnswerChannel): void {
    if (entry.settled) return;
    try {
      this.settleWithAnswer(entry, answer, via);
    } catch (error) {
      this.deps.log(`acp-broker: internal error handling a human's answer: ${(error as Error).message}`);
      if (entry.settled) return;
      // The agent must never receive an option id it did not offer (the broker's own): refuse instead.
      const broker = answer.type === 'selected' && answer.optionId.startsWith(BROKER_OPTION_PREFIX);
      this.settle(entry);
      if (answer.passThrough && !broker) this.deps.outbox.toAgent(answer.passThrough);
      else {
        const deny = answerFor('deny', entry.agentOptions);
        this.deps.outbox.answerAgent(entry.id, deny.type === 'outcome' ? deny.outcome : { outcome: 'cancelled' });
      }
      this.withdrawOthers(entry, via);
    }
  }

  /**
   * A broker option, or an agent "always" option, becomes a broker grant and the agent gets its
   * one-shot option of the same polarity. Any other answer reaches the agent as given.
   */
  private settleWithAnswer(entry: Escalated, answer: HumanAnswer, via: AnswerChannel): void {
    const { outbox, judge } = this.deps;
    const optionId = answer.type === 'selected' ? answer.optionId : undefined;
    const agentOption = entry.agentOptions.find((o) => o.optionId === optionId);
    const offer = optionId === undefined ? undefined
      : entry.offers.get(optionId) ?? (agentOption ? offerForAgentAlways(agentOption, entry.facts, entry.evaluation, grantScopeFor(judge.policyFor(entry.facts.workspace), entry.facts.workspace)) : undefined);
    const source: AnswerSource = { type: via };
    if (!offer) {
      // An error answer settles the request too: the agent gets the client's error.
      const decision = answer.type === 'unreadable' ? undefined : answer.type !== 'selected' ? 'cancelled'
        : agentOption?.kind.startsWith('allow') ? 'allow' : agentOption ? 'deny' : undefined;
      this.settle(entry);
      if (answer.passThrough) outbox.toAgent(answer.passThrough);
      else outbox.answerAgent(entry.id, decision === undefined || decision === 'cancelled' ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: optionId! });
      this.withdrawOthers(entry, via);
      if (decision) outbox.record(entry, { decision, outcome: outcomeOf(decision), source, ...(optionId !== undefined && decision !== 'cancelled' ? { optionId } : {}) });
      else if (!answer.passThrough) outbox.record(entry, { decision: 'cancelled', outcome: 'cancelled', source });
      return;
    }
    const policy = judge.policyFor(entry.facts.workspace);
    const grantIds = recordGrants({ store: judge.deps.grants, policy, offer, now: judge.deps.clock(), log: this.deps.log });
    const final = humanAnswer(offer.decision, entry.agentOptions);
    this.settle(entry);
    outbox.answerAgent(entry.id, final);
    this.withdrawOthers(entry, via);
    const decision = offer.decision === 'allow' ? 'allow' : 'deny';
    outbox.record(entry, {
      decision, outcome: outcomeOf(decision), source,
      ...(final.outcome === 'selected' ? { optionId: final.optionId } : {}), ...(grantIds.length > 0 ? { extra: { grants: grantIds } } : {}),
    });
    if (grantIds.length > 0) this.settleCovered(entry.sessionId, via);
  }

  /** A new grant may fully cover other requests still waiting for a human: answer them now. */
  private settleCovered(sessionId: string, via: AnswerChannel): void {
    for (const entry of this.open.values()) {
      if (entry.settled || entry.sessionId !== sessionId) continue;
      const evaluation = this.deps.judge.rejudge(entry.facts);
      if (evaluation.decision === 'ask') continue;
      const answer = answerFor(evaluation.decision, entry.agentOptions);
      if (answer.type !== 'outcome') continue;
      this.settle(entry);
      this.deps.outbox.answerAgent(entry.id, answer.outcome);
      this.withdrawAll(entry, { type: 'answered', via });
      this.deps.outbox.record({ ...entry, evaluation }, settledAs(evaluation.decision, answer.outcome, evaluation.source));
    }
  }

  /** Nobody answered in time: the fallback, as if no human were there, and every offer withdrawn. */
  private timedOut(entry: Escalated): void {
    if (entry.settled) return;
    const fallback = this.deps.judge.fallback(entry.sessionId);
    const answer = answerFor(fallback, entry.agentOptions);
    const outcome: PermissionOutcome = answer.type === 'outcome' ? answer.outcome : { outcome: 'cancelled' };
    this.settle(entry);
    this.deps.outbox.answerAgent(entry.id, outcome);
    this.withdrawAll(entry, { type: 'timeout' });
    this.deps.outbox.record(entry, {
      ...settledAs('deny', outcome, { type: 'timeout', fallback }),
      extra: { reason: `nobody answered within ${Math.round((this.deps.timeoutMs ?? 0) / 1000)} s; fallback ${fallback}` },
    });
  }

  /** A channel can no longer show the request; when it was the last, the request falls back now. */
  private lost(entry: Escalated, channel: EscalationChannel): void {
    if (entry.settled || !entry.channels.delete(channel) || entry.channels.size > 0) return;
    const fallback = this.deps.judge.fallback(entry.sessionId);
    const answer = answerFor(fallback, entry.agentOptions);
    const outcome: PermissionOutcome = answer.type === 'outcome' ? answer.outcome : { outcome: 'cancelled' };
    this.settle(entry);
    this.deps.outbox.answerAgent(entry.id, outcome);
    this.deps.outbox.record(entry, { ...settledAs('deny', outcome, { type: 'fallback', fallback }), extra: { reason: 'no channel can show this request any more; non-interactive fallback applied' } });
  }

  /**
   * The agent withdrew its request (`$/cancel_request`, which the editor also receives and answers):
   * the other channels drop it; with no editor among them, the broker answers it cancelled.
   */
  cancelledByAgent(id: RpcId): void {
    for (const entry of this.open.values()) {
      if (entry.settled || idKey(entry.id) !== idKey(id)) continue;
      const editor = [...entry.channels.keys()].some((c) => c.answersAs.includes('client'));
      if (!editor) {
        this.settle(entry);
        this.deps.outbox.answerAgent(entry.id, { outcome: 'cancelled' });
        this.deps.outbox.record(entry, { decision: 'cancelled', outcome: 'cancelled', source: { type: 'cancelled', by: '$/cancel_request' } });
      }
      for (const [channel, offer] of [...entry.channels]) {
        if (channel.answersAs.includes('client')) continue;
        entry.channels.delete(channel);
        offer.withdraw({ type: 'cancelled' });
      }
    }
  }

  /** The editor is gone: every request still open is cancelled (none of them allowed). */
  clientGone(): void {
    for (const entry of this.open.values()) {
      if (entry.settled) continue;
      this.settle(entry);
      this.deps.outbox.answerAgent(entry.id, { outcome: 'cancelled' });
      this.withdrawAll(entry, { type: 'cancelled' });
      this.deps.outbox.record(entry, { decision: 'cancelled', outcome: 'cancelled', source: { type: 'cancelled', by: 'client-gone' } });
    }
  }

  shutdown(): void {
    for (const entry of this.open.values()) {
      if (entry.settled) continue;
      this.settle(entry);
      this.withdrawAll(entry, { type: 'shutdown' });
    }
  }

  /** Answered through `via`: every other channel's offer is withdrawn. */
  private withdrawOthers(entry: Escalated, via: AnswerChannel): void {
    for (const [channel, offer] of entry.channels) if (!channel.answersAs.includes(via)) offer.withdraw({ type: 'answered', via });
  }

  /** Requests waiting for a human now. */
  openCount(): number {
    return this.open.size;
  }

  /** Answered, one way or another: later answers change nothing, and it leaves the open ones. */
  private settle(entry: Escalated): void {
    entry.settled = true;
    this.open.delete(entry.key);
  }

  private withdrawAll(entry: Escalated, why: Withdrawal): void {
    for (const offer of entry.channels.values()) offer.withdraw(why);
  }
}

function outcomeOf(decision: 'allow' | 'deny' | 'cancelled'): 'allowed' | 'denied' | 'cancelled' {
  return decision === 'allow' ? 'allowed' : decision === 'deny' ? 'denied' : 'cancelled';
}

/**
 * The agent's option for a human's "always" answer: its one-shot option of that polarity, else —
 * the human did say "always" — its own "always" option; never an option it did not offer.
 */
export function humanAnswer(decision: 'allow' | 'deny', options: readonly OfferedOption[]): PermissionOutcome {
  const answer = answerFor(decision, options);
  if (answer.type === 'outcome') return answer.outcome;
  const always = optionOfKind(options, 'allow_always');
  return always ? { outcome: 'selected', optionId: always.optionId } : { outcome: 'cancelled' };
}
