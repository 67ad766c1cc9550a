/** Plain HTTP requests with full control of the headers (Host, Origin, Cookie), and an SSE reader. */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Inbox } from '../../../src/daemon/web/server.js';

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export function send(port: number, options: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/',
      headers: { host: `127.0.0.1:${port}`, ...options.headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The cookie the inbox sets for its token: `name=value`. */
export async function signIn(inbox: Inbox): Promise<string> {
  const reply = await send(inbox.port, { path: `/?token=${inbox.token}` });
  const cookie = reply.headers['set-cookie']?.[0];
  if (reply.status !== 303 || !cookie) throw new Error(`sign-in failed: ${reply.status}`);
  return cookie.split(';')[0]!;
}

/** A POST /api/answer as the inbox page sends it. */
export function postAnswer(inbox: Inbox, cookie: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return send(inbox.port, {
    method: 'POST', path: '/api/answer', body: JSON.stringify(body),
    headers: { cookie, origin: inbox.origin, 'content-type': 'application/json', ...headers },
  });
}

export interface SseEvent {
  readonly event: string;
  readonly data: string;
  /** performance.now() when the frame's last byte arrived. */
  readonly at: number;
}

/** An open event stream; `next()` resolves with the next event. */
export function openEvents(port: number, cookie: string): Promise<{ next(): Promise<SseEvent>; close(): void }> {
  return new Promise((resolve, reject) => {
    const queue: SseEvent[] = [];
    const waiting: ((e: SseEvent) => void)[] = [];
    let rest = '';
    const req = httpRequest({ host: '127.0.0.1', port, path: '/api/events', headers: { host: `127.0.0.1:${port}`, cookie } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events: HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        rest += chunk;
        let end;
        while ((end = rest.indexOf('\n\n')) >= 0) {
          const block = rest.slice(0, end);
          rest = rest.slice(end + 2);
          const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
          if (fields.event === undefined) continue;
          const event = { event: fields.event, data: fields.data ?? '', at };
          const waiter = waiting.shift();
          if (waiter) waiter(event);
          else queue.push(event);
        }
      });
      resolve({
        next: () => new Promise((r) => { const e = queue.shift(); if (e) r(e); else waiting.push(r); }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
