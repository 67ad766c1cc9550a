import { INTERCEPTED_METHODS } from '../protocol/acp.js';
import { mayHoldInterceptedRequest } from '../protocol/intercepted-lines.js';
import { classify } from '../protocol/jsonrpc.js';
import type { ChunkScanner } from '../protocol/line-splitter.js';
import type { Handler, Incoming, Interest, RequestOrNotification, Response, Side } from './handler.js';
import type { Outbox } from './outbox.js';
import { Prefilter } from './prefilter.js';
import type { ReadinessGate } from './readiness.js';
import { refuseBatch, refuseUnreadable } from './unreadable-lines.js';

export type Direction = 'agent' | 'client';

/** One direction's handlers, indexed as the router looks them up. */
class Lane {
  readonly byMethod = new Map<string, { handler: Handler; side: Side; hold: boolean }[]>();
  readonly responders: Side[] = [];
  readonly prefilter: Prefilter;

  constructor(handlers: readonly Handler[], direction: Direction) {
    const sides: Side[] = [];
    for (const handler of handlers) {
      const side = handler[direction];
      if (!side) continue;
      sides.push(side);
      for (const interest of side.interest.methods ?? []) {
        const list = this.byMethod.get(interest.method) ?? [];
        if (list.some((entry) => entry.handler === handler)) continue;
        list.push({ handler, side, hold: interest.holdUntilReady === true });
        this.byMethod.set(interest.method, list);
      }
      if ((side.interest.responses ?? []).length > 0) this.responders.push(side);
    }
    const awaiting = this.responders.filter((side) => side.awaitsResponses).map((side) => () => side.awaitsResponses!());
    this.prefilter = new Prefilter(sides.map((side) => side.interest), () => awaiting.some((a) => a()));
  }
}

/**
 * Routes each line to the handlers that declared it (handler.ts), in their order, until one takes
 * it; what none takes is relayed unchanged. Lines no handler could want are relayed unparsed (the
 * prefilter). Requests a handler wants held go through the readiness gate. An agent line the broker
 * cannot read but that may hold an intercepted request is refused, never relayed.
 */
export class Router {
  private readonly lanes: Record<Direction, Lane>;
  /** For the relay's fast path: where in a chunk of lines a handler may need to look. */
  readonly agentScanner: ChunkScanner;
  readonly clientScanner: ChunkScanner;

  constructor(private readonly handlers: readonly Handler[], private readonly gate: ReadinessGate, private readonly outbox: Outbox, private readonly log: (message: string) => void) {
    this.lanes = { agent: new Lane(handlers, 'agent'), client: new Lane(handlers, 'client') };
    this.agentScanner = this.lanes.agent.prefilter.chunkScanner();
    this.clientScanner = this.lanes.client.prefilter.chunkScanner();
  }

  /** What the handlers of one direction declared (the prefilter is built from exactly these). */
  interests(direction: Direction): readonly Interest[] {
    return this.handlers.flatMap((handler) => handler[direction] ? [handler[direction]!.interest] : []);
  }

  /** A line from the agent (agent → client). */
  fromAgent(line: Buffer): void {
    if (!this.lanes.agent.prefilter.needsInspection(line)) return this.outbox.toClient(line);
    const parsed = parseLine(line);
    if (parsed === undefined && mayHoldInterceptedRequest(line)) return refuseUnreadable(line, this.outbox, this.log);
    if (Array.isArray(parsed) && mayHoldInterceptedRequest(line)) return refuseBatch(parsed, this.outbox, this.log);
    const message = classify(parsed);
    if (message.type === 'invalid_request' && INTERCEPTED_METHODS.has(message.method)) {
      // Never relayed undecided: a client might take it for a request all the same. Not answered
      // either: a response needs an id the agent could match (null would be another request's).
      this.log(`acp-broker: a ${message.method} request whose id is neither a string, a number nor null was dropped`);
      return;
    }
    if (this.dispatch('agent', message, line, parsed, false) === 'forward') this.outbox.toClient(line);
  }

  /** A line from the editor (client → agent). */
  fromClient(line: Buffer): void {
    if (!this.lanes.client.prefilter.needsInspection(line)) return this.outbox.toAgent(line);
    const parsed = parseLine(line);
    if (this.dispatch('client', classify(parsed), line, parsed, false) === 'forward') this.outbox.toAgent(line);
  }

  /**
   * A client line that already reached the agent (relayed before the broker loaded): the handlers
   * note it as if it had come through here, and may not answer it.
   */
  observeClient(line: Buffer): void {
    if (!this.lanes.client.prefilter.needsInspection(line)) return;
    const parsed = parseLine(line);
    this.dispatch('client', classify(parsed), line, parsed, true);
  }

  private dispatch(direction: Direction, message: ReturnType<typeof classify>, line: Buffer, parsed: unknown, alreadyForwarded: boolean): 'forward' | 'taken' {
    const lane = this.lanes[direction];
    if (message.type === 'response') {
      const incoming: Incoming<Response> = { message, line, parsed, alreadyForwarded };
      for (const side of lane.responders) if (side.onResponse?.(incoming) === 'taken') return 'taken';
      return 'forward';
    }
    if (message.type !== 'request' && message.type !== 'notification') return 'forward';
    const incoming: Incoming<RequestOrNotification> = { message, line, parsed, alreadyForwarded };
    for (const { handler, side, hold } of lane.byMethod.get(message.method) ?? []) {
      if (hold && message.type === 'request' && !this.gate.isReady && !alreadyForwarded) {
        this.gate.hold(handler, incoming, () => {
          if (side.onMessage?.(incoming) === 'forward') this.forward(direction, line);
        });
        return 'taken';
      }
      if (side.onMessage?.(incoming) === 'taken') return 'taken';
    }
    return 'forward';
  }

  private forward(direction: Direction, line: Buffer): void {
    if (direction === 'agent') this.outbox.toClient(line);
    else this.outbox.toAgent(line);
  }

  /** The editor is gone: held requests are settled, then each handler settles what waits on the editor. */
  clientGone(): void {
    this.gate.settle(() => true, 'client-gone');
    for (const handler of this.handlers) handler.clientGone?.();
  }

  shutdown(): void {
    this.gate.settle(() => true, 'shutdown');
    for (const handler of this.handlers) handler.shutdown?.();
  }
}

function parseLine(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
}
