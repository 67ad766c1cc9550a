import { INTERCEPTED_METHODS } from './acp.js';

/**
 * What a line must hold to be an intercepted request: a method name verbatim, or a JSON escape
 * (`\u…`, `\/`) that could spell one. For lines the broker cannot parse (not JSON, a batch, or too
 * long to parse: see relay/oversized-agent-lines.ts). `"` cannot hide: an escaped quote delimits nothing.
 */
export const INTERCEPT_NEEDLES: readonly Buffer[] = [...INTERCEPTED_METHODS, '\\u', '\\/'].map((word) => Buffer.from(word));

/** The line spells an intercepted method, or has escapes that could spell one. */
export function mayHoldInterceptedRequest(line: Buffer): boolean {
  for (const needle of INTERCEPT_NEEDLES) if (line.indexOf(needle) !== -1) return true;
  return false;
}
