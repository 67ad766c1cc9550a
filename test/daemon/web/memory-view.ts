/**
 * A small real ApprovalsView for the inbox's tests, bench and screenshot: approvals held in memory,
 * the first answer wins, later ones get `settled`. The daemon's registry is the production one.
 */
import type { AnswerResult, ApprovalsEvent, ApprovalsView, PendingApproval, Settlement } from '../../../src/daemon/approvals-view.js';
import type { AnswerChannel, ApprovalRequest } from '../../../src/escalation/channel.js';

export interface RecordedAnswer {
  readonly id: string;
  readonly optionId: string;
  readonly via: AnswerChannel;
  /** performance.now() when answer() ran. */
  readonly at: number;
}

export class MemoryView implements ApprovalsView {
  readonly answers: RecordedAnswer[] = [];
  private readonly open = new Map<string, PendingApproval>();
  private readonly closed = new Set<string>();
  private readonly listeners = new Set<(event: ApprovalsEvent) => void>();
  private sequence = 0;

  pending(): readonly PendingApproval[] {
    return [...this.open.values()];
  }

  subscribe(listener: (event: ApprovalsEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  answer(id: string, optionId: string, via: Exclude<AnswerChannel, 'client'>): AnswerResult {
    const approval = this.open.get(id);
    if (!approval) return this.closed.has(id) ? { type: 'settled' } : { type: 'unknown' };
    if (!approval.request.options.some((o) => o.optionId === optionId)) return { type: 'bad_option' };
    this.answers.push({ id, optionId, via, at: performance.now() });
    this.settle(id, { type: 'answered', via, optionId });
    return { type: 'accepted' };
  }

  /** What a broker does when it opens an approval; returns its daemon-wide id. */
  openApproval(request: ApprovalRequest, broker: PendingApproval['broker'] = { pid: 4242, agent: request.agent }): string {
    const id = `b${broker.pid ?? 0}:${request.approvalId}:${++this.sequence}`;
    const approval: PendingApproval = { id, broker, openedAt: new Date().toISOString(), request };
    this.open.set(id, approval);
    this.emit({ type: 'opened', approval });
    return id;
  }

  /** What a broker does when the approval was answered in the editor, cancelled or timed out. */
  withdraw(id: string, reason: string): void {
    if (this.open.has(id)) this.settle(id, { type: 'withdrawn', reason });
  }

  /** What the registry does when a broker's connection ends: its approvals are gone. */
  disconnect(pid: number): void {
    for (const approval of [...this.open.values()]) if (approval.broker.pid === pid) this.settle(approval.id, { type: 'gone' });
  }

  private settle(id: string, settlement: Settlement): void {
    this.open.delete(id);
    this.closed.add(id);
    this.emit({ type: 'settled', id, settlement });
  }

  private emit(event: ApprovalsEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
