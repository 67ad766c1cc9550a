/**
 * What the daemon's front ends (web inbox, terminal answers, notifications) see of the open
 * approvals of every connected broker. The registry implements it; front ends depend only on this.
 */
import type { AnswerChannel, ApprovalRequest } from '../escalation/channel.js';

export interface PendingApproval {
  /** Unique within the daemon: the broker's connection and its approvalId. */
  readonly id: string;
  /** The broker process that opened it. */
  readonly broker: { readonly pid: number | undefined; readonly agent: string | undefined };
  readonly openedAt: string;
  readonly request: ApprovalRequest;
}

/** How an approval left the inbox. */
export type Settlement =
  | { readonly type: 'answered'; readonly via: AnswerChannel; readonly optionId: string | undefined }
  /** Withdrawn by its broker: answered in the editor, cancelled, timed out. */
  | { readonly type: 'withdrawn'; readonly reason: string }
  /** Its broker disconnected. */
  | { readonly type: 'gone' };

export type ApprovalsEvent =
  | { readonly type: 'opened'; readonly approval: PendingApproval }
  | { readonly type: 'settled'; readonly id: string; readonly settlement: Settlement };

export type AnswerResult =
  | { readonly type: 'accepted' }
  /** Already answered, withdrawn or gone: nothing changed (HTTP 409). */
  | { readonly type: 'settled' }
  | { readonly type: 'unknown' }
  /** The option is not one this approval offers. */
  | { readonly type: 'bad_option' };

export interface ApprovalsView {
  pending(): readonly PendingApproval[];
  /** Returns the unsubscribe function. */
  subscribe(listener: (event: ApprovalsEvent) => void): () => void;
  answer(id: string, optionId: string, via: Exclude<AnswerChannel, 'client'>): AnswerResult;
}
