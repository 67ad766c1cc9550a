/**
 * Hosts compared as the network sees them: `EVIL.example`, `evil.example.` (the root's trailing
 * dot), `user:pw@evil.example:443` and `ｅｖｉｌ.example` all name `evil.example`. Applied to the URL of a
 * call and to the host part of a policy's url pattern alike.
 */
/**
 * Lowercase, without the trailing dot, IDNA to ASCII (and numeric IPv4 forms in dotted decimal), as
 * the WHATWG host parser does for http; labels holding glob characters are only lowercased.
 */
export function normalizeHost(host: string): string {
  const trimmed = host.endsWith('.') && host.length > 1 ? host.slice(0, -1) : host;
  const whole = asciiHost(trimmed);
  if (whole !== undefined) return whole;
  return trimmed.split('.').map((label) => asciiHost(label) ?? label.toLowerCase()).join('.');
}

function asciiHost(host: string): string | undefined {
  if (host === '' || /[/?#@\\]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
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
