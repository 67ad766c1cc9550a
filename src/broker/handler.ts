/**
 * What one concern of the broker looks like to the router (router.ts): the messages it reacts to,
 * declared, and what it does with them. A handler depends on the outbox, the decision function and
 * shared state it is given — never on the router or on another handler. The router's line
 * prefilter is built from these declarations (prefilter.ts), so it cannot skip a line a handler
 * declared.
 */
import type { CancelledBy } from '../audit/event.js';
import type { RpcMessage } from '../protocol/jsonrpc.js';

/**
 * A word whose presence makes a line worth parsing, and the substring searched for. A needle
 * starting with a byte that is rare in ordinary traffic is cheaper to find (`Buffer.indexOf` skips to
 * candidates with memchr on its first byte); it must be a substring of the word, which is checked.
 */
export interface Word {
  readonly word: string;
  readonly needle?: string;
}

export interface MethodInterest extends Word {
  /** The JSON-RPC method; `word` is what a line holding it must contain (the method itself, or a marker). */
  readonly method: string;
  /**
   * Only for requests: before decisions can be made, the router holds the request (the handler
   * sees it once they can, unless it was settled meanwhile through `settleHeld`).
   */
  readonly holdUntilReady?: boolean;
}

export interface Interest {
  /** Requests and notifications, by method. A method may be listed more than once, with different words. */
  readonly methods?: readonly MethodInterest[];
  /** Responses: words of the keys looked for, only while the handler `awaitsResponses()`. */
  readonly responses?: readonly Word[];
}

/** A parsed line, as a handler receives it. */
export interface Incoming<M extends RpcMessage = RpcMessage> {
  readonly message: M;
  readonly line: Buffer;
  readonly parsed: unknown;
  /**
   * The line already reached the peer (the early forwarder relayed it before the broker loaded): the
   * handler may note it, not answer it.
   */
  readonly alreadyForwarded: boolean;
}

export type RequestOrNotification = Extract<RpcMessage, { type: 'request' | 'notification' }>;
export type Response = Extract<RpcMessage, { type: 'response' }>;

/** `taken`: the handler answered, refused, held or forwarded the line itself; the router does not forward it. */
export type Verdict = 'forward' | 'taken';

export interface Side {
  readonly interest: Interest;
  onMessage?(incoming: Incoming<RequestOrNotification>): Verdict;
  onResponse?(incoming: Incoming<Response>): Verdict;
  /** Whether responses from this side are awaited now (see `Interest.responses`). */
  awaitsResponses?(): boolean;
}

export interface Handler {
  readonly name: string;
  /** Lines from the agent. */
  readonly agent?: Side;
  /** Lines from the client (the editor). */
  readonly client?: Side;
  /** A request this handler declared `holdUntilReady`, settled while held: answer or refuse it as `by` requires. */
  settleHeld?(incoming: Incoming<RequestOrNotification>, by: CancelledBy): void;
  /** The editor is gone: settle what waits on it. */
  clientGone?(): void;
  /** The connection is ending. */
  shutdown?(): void;
}
