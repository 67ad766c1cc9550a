/**
 * The inbox's live feed: server-sent events. A browser that connects (or reconnects) first gets a
 * `snapshot` of every pending approval, then each `opened` and `settled` as the view emits it; the
 * snapshot and the subscription are taken in one synchronous step, so no event falls between them.
 */
import type { ServerResponse } from 'node:http';
import type { ApprovalsEvent, ApprovalsView, Settlement } from '../approvals-view.js';
import { SECURITY_HEADERS } from './security.js';

/** A browser that stops reading is dropped once this much is queued for it. */
const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;
const MAX_CLIENTS = 64;
/** How many settlements are remembered to explain a late answer (HTTP 409). */
const REMEMBERED_SETTLEMENTS = 1000;

export interface EventHub {
  /** Takes over the response; false when too many streams are open already. */
  add(response: ServerResponse): boolean;
  /** How the approval was settled, when it was settled recently. */
  settlement(id: string): Settlement | undefined;
  readonly clients: number;
  close(): void;
}

export function eventHub(view: ApprovalsView, log: (message: string) => void): EventHub {
  const clients = new Set<ServerResponse>();
  const settled = new Map<string, Settlement>();

  const send = (response: ServerResponse, frame: string) => {
    if (response.writableLength > MAX_QUEUED_BYTES) {
      log(`acp-broker inbox: dropped an event stream that stopped reading`);
      clients.delete(response);
      response.destroy();
      return;
    }
    response.write(frame);
  };
  const broadcast = (frame: string) => {
    for (const response of clients) send(response, frame);
  };

  const unsubscribe = view.subscribe((event: ApprovalsEvent) => {
    switch (event.type) {
      case 'opened':
        broadcast(frame('opened', event.approval));
        return;
      case 'settled':
        settled.delete(event.id);
        settled.set(event.id, event.settlement);
        if (settled.size > REMEMBERED_SETTLEMENTS) settled.delete(settled.keys().next().value!);
        broadcast(frame('settled', { id: event.id, settlement: event.settlement }));
        return;
    }
  });
  const heartbeat = setInterval(() => broadcast(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();

  return {
    add(response) {
      if (clients.size >= MAX_CLIENTS) return false;
      response.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': 'text/event-stream; charset=utf-8',
        Connection: 'keep-alive',
      });
      response.socket?.setNoDelay(true);
      clients.add(response);
      response.on('close', () => clients.delete(response));
      response.write(`retry: 1000\n\n${frame('snapshot', view.pending())}`);
      return true;
    },
    settlement: (id) => settled.get(id),
    get clients() {
      return clients.size;
    },
    close() {
      unsubscribe();
      clearInterval(heartbeat);
      for (const response of clients) response.end();
      clients.clear();
    },
  };
}

/** One SSE frame; JSON escapes every line break, so the data is one line. */
function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
