/**
 * The fields of an ACP ToolCall / ToolCallUpdate the broker reads; the agent's message itself is
 * relayed untouched. A state always has every field, in this order (absent ones undefined): one
 * object layout whatever order or subset of keys an agent sends, so the decision path that reads
 * it stays monomorphic — V8 optimises it once instead of once per agent.
 */
export interface ToolCallState {
  readonly toolCallId: string;
  readonly title?: string | null;
  readonly name?: string | null;
  readonly kind?: string | null;
  readonly status?: string | null;
  readonly content?: readonly unknown[] | null;
  readonly locations?: readonly unknown[] | null;
  readonly rawInput?: unknown;
  readonly _meta?: Record<string, unknown> | null;
}

/** Later fields win; absent fields keep earlier values ("only changed fields need to be included"). */
export function mergeToolCall(base: ToolCallState | undefined, update: Record<string, unknown>): ToolCallState {
  const later = <K extends keyof ToolCallState>(key: K): ToolCallState[K] =>
    (update[key] !== undefined ? update[key] : base?.[key]) as ToolCallState[K];
  // An empty rawInput ({}), as claude sends in its first announcement, must not erase a real one.
  const rawInput = base?.rawInput !== undefined && isEmptyObject(update.rawInput) ? base.rawInput : later('rawInput');
  return {
    toolCallId: later('toolCallId'), title: later('title'), name: later('name'), kind: later('kind'), status: later('status'),
    content: later('content'), locations: later('locations'), rawInput, _meta: later('_meta'),
  };
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}
