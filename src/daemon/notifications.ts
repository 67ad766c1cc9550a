/**
 * Desktop notifications for opened approvals. Approvals are gathered briefly before anything is
 * shown: one alone gets its own notification, a burst (an agent asking fifty times in a second) gets
 * one summary; approvals settled meanwhile (answered in the editor at once) are not shown at all.
 * The notifier is injected; its failure is a warning, never the daemon's end.
 */
import type { ApprovalsView, PendingApproval } from './approvals-view.js';
import { approvalNotification, summaryNotification, type AnswerHint, type DesktopNotification } from './notification-text.js';

/** Buttons, where the platform's notifier has them (macOS, Windows). */
export type NotificationAction = 'allow_once' | 'reject_once';

export interface Notifier {
  /** Shows one notification; resolves with the button pressed, if the notifier has buttons and one was. */
  show(notification: DesktopNotification, withButtons: boolean): Promise<NotificationAction | undefined>;
}

export interface NotificationsOptions {
  readonly view: ApprovalsView;
  readonly notifier: Notifier;
  readonly hint: () => AnswerHint;
  readonly warn: (message: string) => void;
  /** A burst ends after this long without a new approval… */
  readonly quietMs?: number;
  /** …or this long after it began, whichever comes first. */
  readonly maxWaitMs?: number;
}

export class Notifications {
  private batch: PendingApproval[] = [];
  private quietTimer: NodeJS.Timeout | undefined;
  private maxTimer: NodeJS.Timeout | undefined;
  private readonly open = new Set<string>();
  private readonly unsubscribe: () => void;
  private warned = false;

  constructor(private readonly options: NotificationsOptions) {
    this.unsubscribe = options.view.subscribe((event) => {
      if (event.type === 'opened') this.add(event.approval);
      else this.open.delete(event.id);
    });
  }

  close(): void {
    this.unsubscribe();
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.batch = [];
  }

  private add(approval: PendingApproval): void {
    this.open.add(approval.id);
    this.batch.push(approval);
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), this.options.quietMs ?? 200);
    this.maxTimer ??= setTimeout(() => this.flush(), this.options.maxWaitMs ?? 1000);
  }

  private flush(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.quietTimer = undefined;
    this.maxTimer = undefined;
    const still = this.batch.filter((a) => this.open.has(a.id));
    this.batch = [];
    if (still.length === 0) return;
    const hint = this.options.hint();
    if (still.length === 1) this.showOne(still[0]!, approvalNotification(still[0]!, hint));
    else this.show(summaryNotification(still, hint), false);
  }

  private showOne(approval: PendingApproval, notification: DesktopNotification): void {
    void this.show(notification, true).then((action) => {
      if (action === undefined) return;
      const option = approval.request.options.find((o) => o.kind === action);
      if (option) this.options.view.answer(approval.id, option.optionId, 'desktop');
    });
  }

  private async show(notification: DesktopNotification, withButtons: boolean): Promise<NotificationAction | undefined> {
    try {
      return await this.options.notifier.show(notification, withButtons);
    } catch (error) {
      // Once: a missing notifier would otherwise warn for every approval.
      if (!this.warned) this.options.warn(`desktop notifications unavailable: ${(error as Error)?.message ?? String(error)}`);
      this.warned = true;
      return undefined;
    }
  }
}
