import type { AnswerChannel, EscalationChannel, HumanAnswer, Offer, OfferCallbacks, OfferedRequest } from '../escalation/channel.js';
import { idKey } from '../protocol/jsonrpc.js';
import type { Handler, Incoming, Response, Side, Verdict } from './handler.js';
import type { Outbox } from './outbox.js';

const MAX_PENDING = 10_000;

/**
 * The editor as an escalation channel: the request is relayed to it (with the broker's options),
 * and its response is the human's answer. Its handler reads the editor's responses to those requests;
 * a response arriving after the request was settled elsewhere is dropped, never relayed.
 */
export class EditorChannel implements EscalationChannel, Handler {
  readonly name = 'editor';
  readonly answersAs: readonly AnswerChannel[] = ['client'];
  /** By request id: who to tell about the editor's answer, or `withdrawn` (its late answer is dropped). */
  private readonly pending = new Map<string, OfferCallbacks | 'withdrawn'>();

  constructor(private readonly outbox: Outbox) {}

  offer({ wire }: OfferedRequest, callbacks: OfferCallbacks): Offer {
    const key = idKey(wire.id);
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(key, callbacks);
    this.outbox.toClient(wire.line);
    return {
      withdraw: (why) => {
        if (this.pending.get(key) !== callbacks) return;
        this.pending.set(key, 'withdrawn');
        // The editor still shows the dialog unless it went away or the agent cancelled it itself.
        if (why.type === 'answered' || why.type === 'timeout') this.outbox.withdrawFromClient(wire.id);
      },
    };
  }

  readonly client: Side = {
    // The key `"outcome"` of the editor's answer, or `"error"` of its failure.
    interest: { responses: [{ word: '"outcome"', needle: 'utcome"' }, { word: '"error"', needle: 'rror"' }] },
    awaitsResponses: () => this.pending.size > 0,
    onResponse: (incoming) => this.onResponse(incoming),
  };

  private onResponse({ message, line }: Incoming<Response>): Verdict {
    const key = idKey(message.id);
    const waiting = this.pending.get(key);
    if (waiting === undefined) return 'forward';
    this.pending.delete(key);
    if (waiting !== 'withdrawn') waiting.answer(answerOf(message.result, line), 'client');
    return 'taken';
  }
}

function answerOf(result: unknown, line: Buffer): HumanAnswer {
  if (result === undefined) return { type: 'failed', passThrough: line };
  const outcome = (result as { outcome?: { outcome?: unknown; optionId?: unknown } } | null)?.outcome;
  if (outcome?.outcome === 'cancelled') return { type: 'cancelled', passThrough: line };
  if (outcome?.outcome === 'selected' && typeof outcome.optionId === 'string') return { type: 'selected', optionId: outcome.optionId, passThrough: line };
  return { type: 'unreadable', passThrough: line };
}
