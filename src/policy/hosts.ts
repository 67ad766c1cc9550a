/**
 * Hosts compared as the network sees them: `EVIL.example`, `evil.example.` (the root's trailing
 * dot), `user:pw@evil.example:443` and `ｅｖｉｌ.example` all name `evil.example`. Applied to the URL of a
 * call and to the host part of a policy's url pattern alike.
 */
import { domainToASCII } from 'node:url';
import { compileTextMatcher } from './patterns.js';
import type { TextMatcher } from './types.js';

/** Lowercase, without the trailing dot, IDNA to ASCII; labels holding glob characters only lowercased. */
export function normalizeHost(host: string): string {
  const trimmed = host.endsWith('.') && host.length > 1 ? host.slice(0, -1) : host;
  if (/^\[.*\]$/.test(trimmed)) return trimmed.toLowerCase();
  if (!/[*?]/.test(trimmed)) {
    const ascii = domainToASCII(trimmed);
    if (ascii !== '') return ascii;
  }
  return trimmed.split('.').map((label) => (/[*?]/.test(label) ? label : domainToASCII(label) || label)).join('.').toLowerCase();
}

/** What a url condition is tested against: the URL as sent, its normal forms (with and without port), its host. */
export function urlCandidates(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const host = normalizeHost(parsed.hostname);
  const rest = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  const candidates = [url];
  if (host === '') return candidates;
  const origin = `${parsed.protocol}//${host}`;
  if (parsed.port !== '') candidates.push(`${origin}:${parsed.port}${rest}`);
  candidates.push(`${origin}${rest}`, host);
  return candidates;
}

const URL_PATTERN = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is;

/** A url condition: its host part normalised like the URLs it is tested against; `/regex/` as written. */
export function compileUrlMatcher(source: string): TextMatcher | { error: string } {
  if (/^\/.+\/[dgimsuvy]*$/s.test(source)) return compileTextMatcher(source);
  const withScheme = URL_PATTERN.exec(source);
  let normalized = source;
  if (withScheme) {
    const [, scheme, authority, rest] = withScheme as unknown as [string, string, string, string];
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
    const port = /:(\d+|\*)$/.exec(hostPort);
    const host = port ? hostPort.slice(0, port.index) : hostPort;
    normalized = `${scheme.toLowerCase()}${normalizeHost(host)}${port ? port[0] : ''}${rest}`;
  } else if (!source.includes('/') && !source.includes(':')) {
    normalized = normalizeHost(source);
  }
  const compiled = compileTextMatcher(normalized);
  return 'error' in compiled ? compiled : { ...compiled, source };
}
