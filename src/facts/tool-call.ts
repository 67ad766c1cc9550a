/** The fields of an ACP ToolCall / ToolCallUpdate the broker reads; everything else is kept untouched. */
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
  const merged: Record<string, unknown> = base ? { ...base } : {};
  for (const [key, value] of Object.entries(update)) {
    if (value === undefined || key === 'sessionUpdate') continue;
    // An empty rawInput ({}), as claude sends in its first announcement, must not erase a real one.
    if (key === 'rawInput' && isEmptyObject(value) && merged.rawInput !== undefined) continue;
    merged[key] = value;
  }
  return merged as unknown as ToolCallState;
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}
