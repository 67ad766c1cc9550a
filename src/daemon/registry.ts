/**
 * The open approvals of every connected broker, and the one rule that matters: an approval takes
 * one answer. The first `answer` settles it and goes to its broker; every later answer, from any
 * front end, is `settled` and changes nothing. Front ends see this through ApprovalsView.
 */
import type { AnswerChannel, ApprovalRequest } from '../escalation/channel.js';
import type { AnswerResult, ApprovalsEvent, ApprovalsView, PendingApproval, Settlement } from './approvals-view.js';
import type { WireAnswer } from './protocol.js';

/** A connected broker as the registry needs it: where answers and returned approvals go. */
export interface BrokerPeer {
  /** Unique for the daemon's lifetime. */
  readonly key: string;
  readonly pid: number | undefined;
  readonly agent: string | undefined;
  answered(approvalId: string, answer: WireAnswer, via: Exclude<AnswerChannel, 'client'>): void;
  returned(approvalId: string): void;
}

interface Entry {
  readonly approval: PendingApproval;
  readonly peer: BrokerPeer;
}

/** How many settled ids are remembered, so a late answer is told `settled` rather than `unknown`. */
const REMEMBERED_SETTLED = 4096;

/** A broker holding this many open approvals is refused more (each refusal is reported lost to it). */
export const MAX_OPEN_PER_BROKER = 10_000;

export type OpenResult = { readonly type: 'opened'; readonly id: string } | { readonly type: 'duplicate' } | { readonly type: 'too_many' };

export class ApprovalsRegistry implements ApprovalsView {
  private readonly open = new Map<string, Entry>();
  private readonly settledIds = new Set<string>();
  private readonly openPerPeer = new Map<string, number>();
  private readonly listeners = new Set<(event: ApprovalsEvent) => void>();

  constructor(private readonly clock: () => Date = () => new Date()) {}

  pending(): readonly PendingApproval[] {
    return [...this.open.values()].map((e) => e.approval);
  }

  get size(): number {
    return this.open.size;
  }

  subscribe(listener: (event: ApprovalsEvent) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /** A broker's new approval; the id front ends use is the broker's key and its approvalId. */
  add(peer: BrokerPeer, request: ApprovalRequest): OpenResult {
    const id = `${peer.key}-${request.approvalId}`;
    if (this.open.has(id) || this.settledIds.has(id)) return { type: 'duplicate' };
    const held = this.openPerPeer.get(peer.key) ?? 0;
    if (held >= MAX_OPEN_PER_BROKER) return { type: 'too_many' };
    this.openPerPeer.set(peer.key, held + 1);
    const approval: PendingApproval = { id, broker: { pid: peer.pid, agent: peer.agent }, openedAt: this.clock().toISOString(), request };
    this.open.set(id, { approval, peer });
    this.emit({ type: 'opened', approval });
    return { type: 'opened', id };
  }

  answer(id: string, optionId: string, via: Exclude<AnswerChannel, 'client'>): AnswerResult {
    const entry = this.open.get(id);
    if (!entry) return this.settledIds.has(id) ? { type: 'settled' } : { type: 'unknown' };
    if (!entry.approval.request.options.some((o) => o.optionId === optionId)) return { type: 'bad_option' };
    this.settle(id, { type: 'answered', via, optionId });
    entry.peer.answered(entry.approval.request.approvalId, { type: 'selected', optionId }, via);
    return { type: 'accepted' };
  }

  /** The broker took its approval back (answered elsewhere, cancelled, timed out). */
  withdraw(peer: BrokerPeer, approvalId: string, reason: string): boolean {
    const id = `${peer.key}-${approvalId}`;
    if (!this.open.has(id)) return false;
    this.settle(id, { type: 'withdrawn', reason });
    return true;
  }

  /** The broker disconnected: its approvals are gone. */
  dropPeer(peer: BrokerPeer): void {
    for (const [id, entry] of this.open) if (entry.peer === peer) this.settle(id, { type: 'gone' });
  }

  /** The daemon is stopping: every open approval goes back to its broker. */
  returnAll(): void {
    for (const [id, entry] of this.open) {
      this.settle(id, { type: 'withdrawn', reason: 'daemon stopping' });
      entry.peer.returned(entry.approval.request.approvalId);
    }
  }

  private settle(id: string, settlement: Settlement): void {
    const entry = this.open.get(id);
    if (!entry) return;
    this.open.delete(id);
    const held = (this.openPerPeer.get(entry.peer.key) ?? 1) - 1;
    if (held === 0) this.openPerPeer.delete(entry.peer.key);
    else this.openPerPeer.set(entry.peer.key, held);
    this.settledIds.add(id);
    if (this.settledIds.size > REMEMBERED_SETTLED) {
      const oldest = this.settledIds.values().next().value;
      if (oldest !== undefined) this.settledIds.delete(oldest);
    }
    this.emit({ type: 'settled', id, settlement });
  }

  private emit(event: ApprovalsEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A front end's failure is its own: the registry and the other front ends go on.
      }
    }
  }
}
