/**
 * The approvals daemon as an escalation channel (the broker's side of docs/approvals-protocol.md).
 * An offer opens an approval in the daemon; the daemon's answer is reported through the offer's
 * callbacks; a withdrawal tells the daemon. When the socket breaks or the daemon stops, every open
 * offer is reported lost at once: the request then waits for the other channels or falls back, it
 * never hangs on a dead daemon and a lost daemon is never an answer.
 */
import { BrokerError } from '../core/errors.js';
import type { ApprovalsMode } from './approvals-mode.js';
import { connectDaemon, isFailure, type ConnectFailure, type DaemonConnection } from '../daemon/client.js';
import { daemonLocation } from '../daemon/location.js';
import type { RpcLink } from '../daemon/rpc-link.js';
import { MAX_FRAME_BYTES, METHODS, checkAnswered } from '../daemon/protocol.js';
import type { AnswerChannel, ApprovalRequest, EscalationChannel, HumanAnswer, Offer, OfferCallbacks, OfferedRequest } from './channel.js';

export { parseApprovalsMode } from './approvals-mode.js';

export interface ConnectApprovalsOptions {
  /** The agent's name, shown in notifications and the inbox. */
  readonly agent?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** Warnings (daemon lost, bad message from it): stderr in the CLI. */
  readonly log?: (message: string) => void;
  /** After the daemon is lost, how long before a new offer tries to reach it again. */
  readonly retryMs?: number;
}

/**
 * auto: a channel when a daemon runs or starts later (offers are refused while none is reachable);
 * daemon: the same, but a clear error when none runs now; off: no channel.
 */
export async function connectApprovals(mode: ApprovalsMode, options: ConnectApprovalsOptions = {}): Promise<DaemonChannel | undefined> {
  if (mode === 'off') return undefined;
  const channel = new DaemonChannel(daemonLocation(options.env).socket, options);
  const connected = await channel.connect();
  if (!connected && mode === 'daemon') {
    const failure = channel.lastFailure;
    throw new BrokerError('spawn_failed', failure?.type === 'incompatible'
      ? `the approvals daemon did not answer as expected (${failure.detail}); --approvals auto goes on without it`
      : 'no approvals daemon is running (start one with `acp-broker daemon`, or use --approvals auto)');
  }
  return channel;
}

interface OpenOffer {
  /** The connection it was opened on: only that connection's end loses it. */
  readonly link: RpcLink;
  readonly approval: ApprovalRequest;
  readonly callbacks: OfferCallbacks;
}

/** A diff's text cut to this many characters when a whole approval would not fit in one frame. */
const DIFF_TEXT_CUT = 64 * 1024;

export class DaemonChannel implements EscalationChannel {
  readonly name = 'daemon';
  readonly answersAs: readonly AnswerChannel[] = ['desktop', 'web', 'terminal'];
  private connection: DaemonConnection | undefined;
  private readonly offers = new Map<string, OpenOffer>();
  private connecting: Promise<boolean> | undefined;
  private lastAttempt = 0;
  private closed = false;
  /** Why the last attempt to reach the daemon failed. */
  lastFailure: ConnectFailure | undefined;

  constructor(private readonly socketPath: string, private readonly options: ConnectApprovalsOptions) {}

  /** A daemon is connected now. */
  get connected(): boolean {
    return this.connection?.link.isOpen === true;
  }

  /** The inbox address the daemon reported, if any. */
  get inbox(): string | null {
    return this.connection?.hello.inbox ?? null;
  }

  connect(): Promise<boolean> {
    this.connecting ??= this.attempt().finally(() => { this.connecting = undefined; });
    return this.connecting;
  }

  offer(offered: OfferedRequest, callbacks: OfferCallbacks): Offer | undefined {
    const link = this.connection?.link;
    if (!link?.isOpen) {
      this.retry();
      return undefined;
    }
    const approval = offered.approval();
    const request = fitToFrame(approval);
    if (request === undefined || this.offers.has(approval.approvalId)) return undefined;
    const id = approval.approvalId;
    this.offers.set(id, { link, approval, callbacks });
    link.request(METHODS.open, { request }).then(undefined, (error: unknown) => {
      this.options.log?.(`approvals daemon refused approval ${id}: ${(error as Error)?.message ?? String(error)}`);
      this.lose(id);
    });
    return {
      withdraw: (why) => {
        if (!this.offers.delete(id)) return;
        link.notify(METHODS.withdraw, why.type === 'answered' ? { approvalId: id, reason: why.type, via: why.via } : { approvalId: id, reason: why.type });
      },
    };
  }

  /** Withdraws every open offer (`shutdown`) and leaves the daemon. */
  close(): void {
    this.closed = true;
    const link = this.connection?.link;
    for (const id of this.offers.keys()) link?.notify(METHODS.withdraw, { approvalId: id, reason: 'shutdown' });
    this.offers.clear();
    link?.end();
  }

  private async attempt(): Promise<boolean> {
    this.lastAttempt = Date.now();
    let link: RpcLink | undefined;
    const result = await connectDaemon(this.socketPath, {
      role: 'broker',
      agent: this.options.agent,
      unref: true,
      methods: {
        [METHODS.answered]: (params) => { this.answered(params); },
        [METHODS.returned]: (params) => { this.returned(params); },
      },
      onClose: () => { if (link) this.disconnected(link); },
    });
    if (isFailure(result)) {
      this.lastFailure = result;
      return false;
    }
    link = result.link;
    if (this.closed) {
      result.link.end();
      return false;
    }
    this.connection = result;
    return true;
  }

  private retry(): void {
    if (this.closed || this.connecting || Date.now() - this.lastAttempt < (this.options.retryMs ?? 2000)) return;
    void this.connect();
  }

  private answered(params: unknown): void {
    const checked = checkAnswered(params);
    if (typeof checked === 'string') {
      this.options.log?.(`approvals daemon sent a malformed answer (${checked}); ignored`);
      return;
    }
    const offer = this.offers.get(checked.approvalId);
    if (!offer) return;
    this.offers.delete(checked.approvalId);
    const answer: HumanAnswer = checked.answer;
    if (answer.type === 'selected' && !offer.approval.options.some((o) => o.optionId === answer.optionId)) {
      // Never an option that was not offered: the daemon's answer is void, the request waits elsewhere.
      this.options.log?.(`approvals daemon answered ${checked.approvalId} with an option it was not offered; ignored`);
      offer.callbacks.lost();
      return;
    }
    offer.callbacks.answer(answer, checked.via);
  }

  private returned(params: unknown): void {
    const id = (params as { approvalId?: unknown } | null)?.approvalId;
    if (typeof id === 'string') this.lose(id);
  }

  private lose(id: string): void {
    const offer = this.offers.get(id);
    if (!offer) return;
    this.offers.delete(id);
    offer.callbacks.lost();
  }

  private disconnected(link: RpcLink): void {
    if (this.connection?.link === link) this.connection = undefined;
    const lost = [...this.offers].filter(([, offer]) => offer.link === link).map(([id]) => id);
    if (!this.closed && lost.length > 0) this.options.log?.(`approvals daemon lost; ${lost.length} request(s) wait for the other channels`);
    for (const id of lost) this.lose(id);
  }
}

/** The approval as one frame: diffs are cut, then dropped, when the whole would be over the daemon's limit. */
export function fitToFrame(approval: ApprovalRequest, maxBytes = MAX_FRAME_BYTES): ApprovalRequest | undefined {
  const room = maxBytes - 4096;
  const fits = (a: ApprovalRequest) => Buffer.byteLength(JSON.stringify({ request: a })) <= room;
  if (fits(approval)) return approval;
  const cutText = (t: string) => (t.length > DIFF_TEXT_CUT ? `${t.slice(0, DIFF_TEXT_CUT)}\n… (${t.length - DIFF_TEXT_CUT} more characters not shown)` : t);
  const cut = { ...approval, diffs: approval.diffs.map((d) => ({ path: d.path, oldText: d.oldText === null ? null : cutText(d.oldText), newText: cutText(d.newText) })) };
  if (fits(cut)) return cut;
  const bare = { ...approval, diffs: [] };
  return fits(bare) ? bare : undefined;
}
