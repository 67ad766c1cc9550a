/** Reading the few params the broker's handlers share. */

/** A request's session ('' when it names none). */
export function sessionIdOf(params: unknown): string {
  const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
  return typeof sessionId === 'string' ? sessionId : '';
}
