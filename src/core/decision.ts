/** The three answers a rule, a grant or the whole policy can give. */
export type Decision = 'allow' | 'ask' | 'deny';

export const DECISIONS: readonly Decision[] = ['allow', 'ask', 'deny'];

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** Strictest wins: deny > ask > allow. */
export function strictest(a: Decision, b: Decision): Decision {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

export function isDecision(value: unknown): value is Decision {
  return value === 'allow' || value === 'ask' || value === 'deny';
}

export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
