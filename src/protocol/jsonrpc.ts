/** JSON-RPC 2.0 message shapes as they arrive: nothing is assumed beyond what is checked here. */
export type RpcId = string | number | null;

export type RpcMessage =
  | { readonly type: 'request'; readonly id: RpcId; readonly method: string; readonly params: unknown }
  | { readonly type: 'notification'; readonly method: string; readonly params: unknown }
  | { readonly type: 'response'; readonly id: RpcId; readonly result?: unknown; readonly error?: unknown }
  /** A request whose `id` is not a string, a number or null (`true`, an object): malformed, not a notification. */
  | { readonly type: 'invalid_request'; readonly method: string }
  | { readonly type: 'other' };

export function classify(value: unknown): RpcMessage {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { type: 'other' };
  const m = value as Record<string, unknown>;
  const hasId = 'id' in m && (typeof m.id === 'string' || typeof m.id === 'number' || m.id === null);
  if (typeof m.method === 'string' && 'id' in m && m.id !== undefined && !hasId) return { type: 'invalid_request', method: m.method };
  if (typeof m.method === 'string') {
    return hasId ? { type: 'request', id: m.id as RpcId, method: m.method, params: m.params }
      : { type: 'notification', method: m.method, params: m.params };
  }
  if (hasId && ('result' in m || 'error' in m)) {
    return { type: 'response', id: m.id as RpcId, result: m.result, error: m.error };
  }
  return { type: 'other' };
}

/** A map key that keeps 1 and "1" apart. */
export function idKey(id: RpcId): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`;
}

export function encode(message: object): Buffer {
  return Buffer.from(`${JSON.stringify(message)}\n`, 'utf8');
}

/** JSON-RPC error codes the broker itself sends. */
export const RPC_ERRORS = {
  /** The broker could not check a request, so it did not relay it. */
  internalError: -32603,
  requestCancelled: -32800,
  /** The message is not a valid JSON-RPC request (e.g. its id is neither a string, a number nor null). */
  invalidRequest: -32600,
  /** Application error: a request denied by policy before it reached the editor. */
  deniedByPolicy: -32001,
} as const;
