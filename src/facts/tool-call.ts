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
  /**
   * Every distinct working-directory parameter (`cwd`, `workdir`, `directory`, `dir_path`) any
   * rawInput of this call carried, earlier ones included: a later rawInput replaces the earlier one,
   * but a directory the agent announced before still says where the command may run.
   */
  readonly directoryHints?: readonly unknown[];
}

/** rawInput fields that name the directory a shell tool runs its command in, by the agents that use them. */
export const DIRECTORY_FIELDS = ['cwd', 'workdir', 'directory', 'dir_path'] as const;

/** More distinct hints than this are not kept one by one: the marker below stands for the rest. */
const MAX_DIRECTORY_HINTS = 8;
/** Stands for hints that were not kept; never a readable directory. */
export const TOO_MANY_DIRECTORY_HINTS: unique symbol = Symbol('too many directory hints');

/** Later fields win; absent fields keep earlier values ("only changed fields need to be included"). */
export function mergeToolCall(base: ToolCallState | undefined, update: Record<string, unknown>): ToolCallState {
  // An empty rawInput ({}), as claude sends in its first announcement, must not erase a real one.
  const rawInput = base?.rawInput !== undefined && isEmptyObject(update.rawInput) ? base.rawInput : later(base, update, 'rawInput');
  // Nor may an empty locations list (gemini's request sends `locations: []`) erase the paths announced before.
  const locations = isNonEmptyList(base?.locations) && isEmptyList(update.locations) ? base.locations : later(base, update, 'locations');
  return {
    toolCallId: later(base, update, 'toolCallId'), title: later(base, update, 'title'), name: later(base, update, 'name'),
    kind: later(base, update, 'kind'), status: later(base, update, 'status'), content: later(base, update, 'content'),
    locations, rawInput, _meta: later(base, update, '_meta'),
    directoryHints: withDirectoryHints(base?.directoryHints ?? NO_HINTS, update.rawInput),
  };
}

/** The update's field if it has one, else the earlier one (a function, not a closure: this runs for every update). */
function later<K extends keyof ToolCallState>(base: ToolCallState | undefined, update: Record<string, unknown>, key: K): ToolCallState[K] {
  return (update[key] !== undefined ? update[key] : base?.[key]) as ToolCallState[K];
}

/** No directory hints (shared: hints are only ever replaced by a new list, never added to). */
const NO_HINTS: readonly unknown[] = Object.freeze([]);

function withDirectoryHints(hints: readonly unknown[], rawInput: unknown): readonly unknown[] {
  if (rawInput === null || typeof rawInput !== 'object' || Array.isArray(rawInput)) return hints;
  let result = hints;
  for (const field of DIRECTORY_FIELDS) {
    const value = (rawInput as Record<string, unknown>)[field];
    // Absent, null and '' all mean "no directory given" to every agent that has the parameter.
    if (value === undefined || value === null || value === '' || result.includes(value)) continue;
    if (result.length >= MAX_DIRECTORY_HINTS) return result.includes(TOO_MANY_DIRECTORY_HINTS) ? result : [...result, TOO_MANY_DIRECTORY_HINTS];
    result = [...result, value];
  }
  return result;
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

function isEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

function isNonEmptyList(value: unknown): value is readonly unknown[] {
  return Array.isArray(value) && value.length > 0;
}
