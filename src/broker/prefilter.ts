/**
 * Most traffic (message chunks, plans, usage) needs no inspection; parsing it would be the relay's
 * main cost. A line is parsed only if it could be a message the broker acts on. JSON may escape any
 * character (`\/`, `\u0073`), so a line with escapes is always parsed: skipping is only ever safe.
 */
const AGENT_NEEDLES = ['request_permission', 'tool_call', 'fs/', 'terminal/create', '$/cancel_request'].map((s) => Buffer.from(s));
const CLIENT_NEEDLES = ['session/', 'initialize', '$/cancel_request'].map((s) => Buffer.from(s));
const RESPONSE_NEEDLES = ['"result"', '"error"'].map((s) => Buffer.from(s));
const ESCAPES = [Buffer.from('\\u'), Buffer.from('\\/')];

function containsAny(line: Buffer, needles: readonly Buffer[]): boolean {
  for (const needle of needles) if (line.indexOf(needle) !== -1) return true;
  return false;
}

export function agentLineNeedsInspection(line: Buffer, awaitingResponses: boolean): boolean {
  return containsAny(line, AGENT_NEEDLES) || containsAny(line, ESCAPES) || (awaitingResponses && containsAny(line, RESPONSE_NEEDLES));
}

const OUTCOME = [Buffer.from('"outcome"')];

/** `awaitingAnswers`: escalated permission requests wait for the client's answer. */
export function clientLineNeedsInspection(line: Buffer, awaitingAnswers: boolean): boolean {
  return containsAny(line, CLIENT_NEEDLES) || containsAny(line, ESCAPES) || (awaitingAnswers && containsAny(line, OUTCOME));
}
