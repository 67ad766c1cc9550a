/**
 * The inbox's gates, checked on every request before anything else runs (server.ts):
 * - Host must name the loopback address or localhost with the inbox's port: a page on an attacker's
 *   domain that resolves to 127.0.0.1 (DNS rebinding) sends its own name and is turned away.
 * - A per-launch token (256 bits) in the address is exchanged once for an HttpOnly SameSite=Strict
 *   cookie; every other request needs that cookie, which a browser never sends from another site.
 * - A state-changing request is a POST whose Origin is the inbox's own, with a JSON body (which a
 *   plain HTML form cannot send).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';

/** Cookies are not separated by port: the name carries it, so two inboxes never overwrite each other's. */
function cookieName(port: number): string {
  return `acp_inbox_${port}`;
}

export interface Secrets {
  /** In the address the daemon prints: `/?token=…`. */
  readonly token: string;
  /** What the cookie carries after the exchange. */
  readonly session: string;
}

export function newSecrets(): Secrets {
  return { token: randomBytes(32).toString('base64url'), session: randomBytes(32).toString('base64url') };
}

/** Equal strings, compared in constant time. */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Host header when it names this inbox, else undefined. */
export function allowedHost(request: IncomingMessage, port: number): string | undefined {
  const host = request.headers.host;
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` ? host : undefined;
}

/** A POST must come from a page of the inbox itself: its Origin is exactly `http://<Host>`. */
export function sameOrigin(request: IncomingMessage, host: string): boolean {
  return request.headers.origin === `http://${host}`;
}

export function sessionCookie(request: IncomingMessage, port: number): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === cookieName(port)) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function setCookieHeader(session: string, port: number): string {
  // No Max-Age: the cookie ends with the browser session, the secret with the daemon.
  return `${cookieName(port)}=${session}; HttpOnly; SameSite=Strict; Path=/`;
}

/** On every response: no inline script, no framing, nothing cached, nothing leaked by referrer. */
export const SECURITY_HEADERS: OutgoingHttpHeaders = {
  'Content-Security-Policy': [
    "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self'",
    "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
  ].join('; '),
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
