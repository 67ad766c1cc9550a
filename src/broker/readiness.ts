import type { CancelledBy } from '../audit/event.js';
import type { Handler, Incoming, RequestOrNotification } from './handler.js';

/** A request the router holds for a handler until decisions can be made. */
export interface HeldRequest {
  readonly handler: Handler;
  readonly incoming: Incoming<RequestOrNotification>;
  settled: boolean;
}

/**
 * Decisions need the policy and the parser, which finish loading while the agent starts. Until
 * they have, work that decides waits here in arrival order: requests the router holds (each held
 * request holds only itself; the lines after it flow on) and checks handlers defer. Held requests
 * can be settled meanwhile (cancelled, or refused when the editor leaves); they are then skipped.
 */
export class ReadinessGate {
  private waiting: (() => void)[] | undefined;
  private readonly held = new Set<HeldRequest>();

  constructor(ready: Promise<unknown> | undefined, log: (message: string) => void) {
    if (!ready) return;
    this.waiting = [];
    const flush = () => {
      const queued = this.waiting ?? [];
      this.waiting = undefined;
      for (const run of queued) run();
    };
    ready.then(flush, (error: unknown) => {
      // Decisions then fail closed one by one (the deciding code throws and is caught).
      log(`acp-broker: the policy engine failed to start: ${(error as Error).message}`);
      flush();
    });
  }

  get isReady(): boolean {
    return this.waiting === undefined;
  }

  /** Run `work` now when decisions can be made, else once they can. */
  whenReady(work: () => void): void {
    if (this.waiting) this.waiting.push(work);
    else work();
  }

  /** Hold a request for its handler; it runs once decisions can be made, unless settled before. */
  hold(handler: Handler, incoming: Incoming<RequestOrNotification>, run: () => void): void {
    const entry: HeldRequest = { handler, incoming, settled: false };
    this.held.add(entry);
    this.whenReady(() => {
      this.held.delete(entry);
      if (!entry.settled) run();
    });
  }

  /** Settle the held requests `which` picks: each handler answers or refuses its own as `by` requires. */
  settle(which: (held: HeldRequest) => boolean, by: CancelledBy): void {
    for (const entry of [...this.held]) {
      if (entry.settled || !which(entry)) continue;
      entry.settled = true;
      this.held.delete(entry);
      entry.handler.settleHeld?.(entry.incoming, by);
    }
  }

  heldCount(): number {
    return this.held.size;
  }
}
