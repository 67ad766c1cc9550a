/**
 * The daemon's web inbox: pending approvals of every broker, live, with a button per option, and
 * the recent decisions of the audit log. Node's http module on 127.0.0.1 only; every request passes
 * the gates of security.ts first. The page is static; the browser renders approvals from JSON with
 * text nodes only (client-script.ts), so nothing an agent writes can become markup.
 */
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrokerError } from '../../core/errors.js';
import type { AnswerChannel } from '../../escalation/channel.js';
import type { AnswerResult, ApprovalsView, Settlement } from '../approvals-view.js';
import { CLIENT_SCRIPT } from './client-script.js';
import { eventHub } from './events.js';
import { INBOX_PAGE, LOCKED_PAGE } from './page.js';
import type { RecentDecision } from './recent-decisions.js';
import { allowedHost, newSecrets, sameOrigin, sameSecret, SECURITY_HEADERS, sessionCookie, setCookieHeader } from './security.js';
import { STYLES } from './styles.js';

export interface InboxOptions {
  readonly view: ApprovalsView;
  /** 0 or absent: any free port. */
  readonly port?: number;
  readonly recentDecisions: () => Promise<readonly RecentDecision[]>;
  readonly log: (message: string) => void;
}

export interface Inbox {
  /** The address to open, with the token: `http://127.0.0.1:PORT/?token=…`. */
  readonly url: string;
  /** The address without the token. */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 8 * 1024;
const REFUSALS_LOGGED = 20;
const REFUSAL_LOG_WINDOW_MS = 60_000;

export async function startInbox(options: InboxOptions): Promise<Inbox> {
  const { view, log } = options;
  const secrets = newSecrets();
  const hub = eventHub(view, log);
  let port = 0;
  // Any web page the user visits can send requests here: a flood of refusals must not flood the log.
  let windowStart = 0;
  let refusals = 0;
  const logRefusal = (line: string) => {
    const now = Date.now();
    if (now - windowStart > REFUSAL_LOG_WINDOW_MS) {
      if (refusals > REFUSALS_LOGGED) log(`acp-broker inbox: … and ${refusals - REFUSALS_LOGGED} more refused requests`);
      windowStart = now;
      refusals = 0;
    }
    if (++refusals <= REFUSALS_LOGGED) log(`acp-broker inbox: ${line}`);
  };

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const method = request.method ?? 'GET';
    // Refused attempts to change something are logged (they are what an attack looks like), with
    // the headers quoted: they are the sender's text.
    const refuse = (status: number, message: string, headers: OutgoingHttpHeaders = {}) => {
      if (method !== 'GET') {
        const path = (request.url ?? '/').split('?')[0];
        logRefusal(`refused ${method} ${JSON.stringify(path)} (Host ${JSON.stringify(request.headers.host ?? '')}, Origin ${JSON.stringify(request.headers.origin ?? '')}): ${status} ${message}`);
      }
      text(response, status, message, headers);
    };
    const host = allowedHost(request, port);
    if (!host) return refuse(421, 'This inbox answers only to http://127.0.0.1:PORT or http://localhost:PORT.');
    const url = new URL(request.url ?? '/', `http://${host}`);

    if (url.pathname === '/' && url.searchParams.has('token')) {
      if (method !== 'GET') return refuse(405, 'GET only.', { Allow: 'GET' });
      if (!sameSecret(url.searchParams.get('token') ?? undefined, secrets.token)) {
        return refuse(403, 'Wrong or old token: run `acp-broker inbox` for the current address.');
      }
      // The token leaves the address bar at once; from now on the cookie speaks for this browser.
      response.writeHead(303, { ...SECURITY_HEADERS, Location: '/', 'Set-Cookie': setCookieHeader(secrets.session, port) });
      response.end();
      return;
    }
    if (!sameSecret(sessionCookie(request, port), secrets.session)) {
      if (url.pathname === '/' && method === 'GET') return html(response, 401, LOCKED_PAGE);
      return refuse(401, 'Not signed in: open the address `acp-broker inbox` prints.');
    }

    const route = ROUTES[url.pathname];
    if (!route) return text(response, 404, 'Not found.');
    if (route !== method) return refuse(405, `${route} only.`, { Allow: route });
    switch (url.pathname) {
      case '/': return html(response, 200, INBOX_PAGE);
      case '/inbox.js': return asset(response, 'text/javascript; charset=utf-8', CLIENT_SCRIPT);
      case '/inbox.css': return asset(response, 'text/css; charset=utf-8', STYLES);
      case '/favicon.ico': return send(response, 204, 'text/plain', '');
      case '/api/pending': return json(response, 200, view.pending());
      case '/api/events':
        if (!hub.add(response)) text(response, 503, 'Too many open inbox pages.');
        return;
      case '/api/recent':
        options.recentDecisions().then(
          (decisions) => json(response, 200, decisions),
          (error: unknown) => {
            log(`acp-broker inbox: cannot read the audit log: ${(error as Error).message}`);
            json(response, 500, { error: 'audit_read', message: `Cannot read the audit log: ${(error as Error).message}` });
          },
        );
        return;
      case '/api/answer':
        if (!sameOrigin(request, host)) return refuse(403, 'Answers are accepted only from the inbox page itself.');
        if (!/^application\/json(;|$)/i.test(request.headers['content-type'] ?? '')) return refuse(415, 'The answer must be JSON.');
        readBody(request, response, (body) => answer(response, body));
        return;
    }
  };

  const answer = (response: ServerResponse, body: string) => {
    const parsed = parseAnswer(body);
    if (!parsed) return json(response, 400, { error: 'bad_request', message: 'Expected {"id": "…", "optionId": "…"}.' });
    const result = view.answer(parsed.id, parsed.optionId, 'web');
    const [status, reply] = answerReply(result, hub.settlement(parsed.id));
    json(response, status, reply);
  };

  const server = createServer((request, response) => {
    try {
      handle(request, response);
    } catch (error) {
      log(`acp-broker inbox: ${request.method} ${request.url?.split('?')[0]} failed: ${(error as Error).message}`);
      if (!response.headersSent) text(response, 500, 'Internal error.');
      else response.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      hub.close();
      reject(new BrokerError('usage', `cannot serve the inbox on 127.0.0.1:${options.port ?? 0}: ${error.code ?? error.message}`, { cause: error }));
    });
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  server.on('error', (error) => log(`acp-broker inbox: ${error.message}`));
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${secrets.token}`,
    origin,
    port,
    token: secrets.token,
    close: () => new Promise<void>((resolve) => {
      hub.close();
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

const ROUTES: Record<string, 'GET' | 'POST'> = {
  '/': 'GET',
  '/inbox.js': 'GET',
  '/inbox.css': 'GET',
  '/favicon.ico': 'GET',
  '/api/pending': 'GET',
  '/api/events': 'GET',
  '/api/recent': 'GET',
  '/api/answer': 'POST',
};

function answerReply(result: AnswerResult, settlement: Settlement | undefined): [number, { result?: string; error?: string; message?: string }] {
  switch (result.type) {
    case 'accepted': return [200, { result: 'accepted' }];
    case 'settled': return [409, { error: 'settled', message: `Already settled, nothing changed: ${describeSettlement(settlement)}.` }];
    case 'unknown': return [404, { error: 'unknown', message: 'No such approval.' }];
    case 'bad_option': return [400, { error: 'bad_option', message: 'This approval does not offer that option.' }];
  }
}

const CHANNEL_NAMES: Record<AnswerChannel, string> = { client: 'editor', web: 'web inbox', desktop: 'desktop notification', terminal: 'terminal' };

function describeSettlement(settlement: Settlement | undefined): string {
  if (!settlement) return 'this approval was answered or withdrawn elsewhere';
  switch (settlement.type) {
    case 'answered': return `answered in the ${CHANNEL_NAMES[settlement.via]}`;
    case 'withdrawn': return `withdrawn by its broker (${settlement.reason})`;
    case 'gone': return 'its broker is gone';
  }
}

function parseAnswer(body: string): { id: string; optionId: string } | undefined {
  try {
    const value: unknown = JSON.parse(body);
    if (value === null || typeof value !== 'object') return undefined;
    const { id, optionId } = value as Record<string, unknown>;
    return typeof id === 'string' && typeof optionId === 'string' ? { id, optionId } : undefined;
  } catch {
    return undefined;
  }
}

function readBody(request: IncomingMessage, response: ServerResponse, then: (body: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('error', () => {});
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  request.on('end', () => {
    if (size > MAX_BODY_BYTES) text(response, 413, 'Too large.', { Connection: 'close' });
    else then(Buffer.concat(chunks).toString('utf8'));
  });
}

function text(response: ServerResponse, status: number, message: string, headers: OutgoingHttpHeaders = {}): void {
  send(response, status, 'text/plain; charset=utf-8', `${message}\n`, headers);
}

function json(response: ServerResponse, status: number, value: unknown): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

function html(response: ServerResponse, status: number, page: string): void {
  send(response, status, 'text/html; charset=utf-8', page);
}

function asset(response: ServerResponse, type: string, body: string): void {
  send(response, 200, type, body);
}

function send(response: ServerResponse, status: number, type: string, body: string, headers: OutgoingHttpHeaders = {}): void {
  if (response.headersSent) return;
  response.writeHead(status, { ...SECURITY_HEADERS, ...headers, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}
