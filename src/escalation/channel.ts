/**
 * The escalation seam: a permission request the policy leaves to a human is offered to every
 * channel at once (the editor, the approvals daemon, …); the first answer wins and the others are
 * withdrawn (escalations.ts). A channel only shows and reports: it never answers the agent itself.
 */
import type { Decision } from '../core/decision.js';
import type { OfferedOption } from '../protocol/acp.js';
import type { RpcId } from '../protocol/jsonrpc.js';

/** Where a human's answer came from, as the audit names it. */
export type AnswerChannel = 'client' | 'desktop' | 'web' | 'terminal';

/**
 * One option as a human sees it, of any kind the agent sent (as the editor shows it); `covers` says
 * what a broker "always" option would remember.
 */
export type ApprovalOption = OfferedOption & {
  readonly covers?: string;
};

/** Everything a human needs to decide one escalated request, with secrets already masked. */
export interface ApprovalRequest {
  /** Unique within one broker process. */
  readonly approvalId: string;
  readonly agent: string | undefined;
  readonly workspace: string;
  readonly sessionId: string;
  readonly kind: string;
  readonly title: string | undefined;
  /** The shell line, for an execute request. */
  readonly command: string | undefined;
  readonly paths: readonly { readonly path: string; readonly access: string }[];
  readonly items: readonly { readonly item: string; readonly decision: Decision | null; readonly rules: readonly string[] }[];
  /** Why the policy could not decide alone. */
  readonly reason: string;
  readonly diffs: readonly { readonly path: string; readonly oldText: string | null; readonly newText: string }[];
  readonly options: readonly ApprovalOption[];
  /** When the request falls back if nobody answers (ISO 8601); absent when it waits indefinitely. */
  readonly deadline: string | undefined;
}

/**
 * A human's answer. `passThrough`: the bytes of the editor's own response, relayed unchanged to the
 * agent when the answer needs nothing from the broker (an agent option, no grant to record).
 */
export type HumanAnswer =
  | { readonly type: 'selected'; readonly optionId: string; readonly passThrough?: Buffer }
  | { readonly type: 'cancelled'; readonly passThrough?: Buffer }
  /** The editor answered with a JSON-RPC error: the agent gets that error. */
  | { readonly type: 'failed'; readonly passThrough: Buffer }
  /** The editor's result names no outcome the broker can read: relayed as it is, nothing recorded. */
  | { readonly type: 'unreadable'; readonly passThrough: Buffer };

/** Why an offer is taken back from a channel. */
export type Withdrawal =
  | { readonly type: 'answered'; readonly via: AnswerChannel }
  | { readonly type: 'cancelled' }
  | { readonly type: 'timeout' }
  | { readonly type: 'shutdown' };

/** What an offered channel reports back. Each callback may be called at most once; later calls are ignored. */
export interface OfferCallbacks {
  readonly answer: (answer: HumanAnswer, via: AnswerChannel) => void;
  /** The channel can no longer show the request (its daemon died, its socket broke). */
  readonly lost: () => void;
}

/** The raw request as the agent sent it, for the editor channel, which relays it. */
export interface WireRequest {
  readonly id: RpcId;
  readonly line: Buffer;
}

export interface Offer {
  readonly withdraw: (why: Withdrawal) => void;
}

/** A request as offered: the wire form (for the editor, which relays it) and, built on first use, what a human is shown. */
export interface OfferedRequest {
  readonly wire: WireRequest;
  approval(): ApprovalRequest;
}

export interface EscalationChannel {
  readonly name: string;
  /** The channels its answers come through (the daemon answers as desktop, web or terminal). */
  readonly answersAs: readonly AnswerChannel[];
  /** Show the request; undefined when this channel cannot take it now (no daemon running, …). */
  offer(request: OfferedRequest, callbacks: OfferCallbacks): Offer | undefined;
}
