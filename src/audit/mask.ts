/**
 * Secrets never reach the audit log. The whole event goes through one pass (`maskValue`): every
 * string is searched for the shapes of secret-rules.ts, every value under a sensitive key is
 * replaced, values under keys that may be sensitive are replaced when they look random, and so are
 * the values of `{ name, value }` pairs (env lists, headers) with a sensitive name.
 */
import { CONTEXT_RULES, POSSIBLY_SENSITIVE_KEY, SENSITIVE_KEY, TOKEN_RULES, isSensitiveName, type SecretRule } from './secret-rules.js';

const RULES: readonly SecretRule[] = [...TOKEN_RULES, ...CONTEXT_RULES];
/** One test for every keyword of every rule: most strings hold none, and one test is far cheaper than forty replacements. */
const ANY_KEYWORD = new RegExp([...new Set(RULES.flatMap((r) => r.keywords))].map(escapeRegExp).join('|'), 'i');
const MASK = '***';
const MAX_STRING = 2000;
const MAX_DEPTH = 9;
const MAX_ITEMS = 100;

/** `text` with every secret masked, cut to `limit` characters. */
export function maskText(text: string, limit = MAX_STRING): string {
  const out = maskedWhole(text);
  return out.length > limit ? `${out.slice(0, limit)}… (${out.length - limit} more characters)` : out;
}

/**
 * One event holds the same agent strings several times (the title, the command, the input, the
 * items), and a session's events repeat them: the last results are kept. Bounded: cleared when full.
 */
const recentlyMasked = new Map<string, string>();
const RECENT_MAX = 256;
/** Longer strings are not kept: comparing them as keys costs what masking them does. */
const RECENT_MAX_LENGTH = 512;

/** Off only inside `withoutMaskCaches` (the slow path the caches are tested against). */
let caching = true;

/** `work` with both caches bypassed: the reference the property tests hold the caches to. */
export function withoutMaskCaches<T>(work: () => T): T {
  caching = false;
  try {
    return work();
  } finally {
    caching = true;
  }
}

function maskedWhole(text: string): string {
  if (!caching || text.length > RECENT_MAX_LENGTH) return ANY_KEYWORD.test(text) ? maskWith(text, true) : text;
  const known = recentlyMasked.get(text);
  if (known !== undefined) return known;
  const out = ANY_KEYWORD.test(text) ? maskWith(text, true) : text;
  if (recentlyMasked.size >= RECENT_MAX) recentlyMasked.clear();
  recentlyMasked.set(text, out);
  return out;
}

/** Every rule applied, keywords ignored (exported so tests can hold the keyword gate to it). */
export function maskEveryPattern(text: string): string {
  return maskWith(text, false);
}

function maskWith(text: string, byKeyword: boolean): string {
  let out = text;
  let lower: string | undefined;
  for (const rule of RULES) {
    if (byKeyword) {
      lower ??= out.toLowerCase();
      if (!rule.keywords.some((keyword) => lower!.includes(keyword))) continue;
    }
    const next = out.replace(rule.pattern, rule.mask === 'match' ? MASK : `$1${MASK}`);
    if (next !== out) {
      out = next;
      lower = undefined;
    }
  }
  return out;
}

/**
 * `value` with every secret masked. Copy on write: what needs no masking is returned as it is (the
 * audit line is serialized at once, and the broker never mutates parsed messages), so the usual
 * event costs a walk, not a copy.
 */
export function maskValue(value: unknown, depth = 0, limit = MAX_STRING): unknown {
  if (typeof value === 'string') return maskText(value, limit);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '(nested too deep)';
  if (Array.isArray(value)) {
    const kept = value.length > MAX_ITEMS ? value.slice(0, MAX_ITEMS) : value;
    let out: unknown[] | undefined = kept === value ? undefined : kept;
    for (let i = 0; i < kept.length; i++) {
      const masked = maskValue(kept[i], depth + 1, limit);
      if (masked === kept[i]) continue;
      out ??= kept.slice();
      out[i] = masked;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  const pairName = namedPairName(record);
  let out: Record<string, unknown> | undefined;
  // Keys, not entries: no [key, value] array per property on the audit path.
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const v = record[key];
    const masked = key === 'value' && pairName !== undefined && isSensitiveName(pairName) && v !== null && v !== undefined
      ? MASK
      : maskEntry(key, v, depth, limit);
    if (masked === v && out === undefined) continue;
    if (out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) defineEntry(out, keys[j]!, record[keys[j]!]);
    }
    defineEntry(out, key, masked);
  }
  return out ?? value;
}

function maskEntry(key: string, value: unknown, depth: number, limit: number): unknown {
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  const kind = keyKind(key);
  if (kind === KeyKind.sensitive) return MASK;
  if (key === 'input' && depth === 0) return maskValue(value, 1, MAX_STRING);
  if (typeof value === 'string' && kind === KeyKind.possiblySensitive && looksRandom(value)) return MASK;
  return maskValue(value, depth + 1, limit);
}

const enum KeyKind { plain, possiblySensitive, sensitive }
/** Keys repeat (every event has the same few dozen): each is classified once. Bounded. */
const keyKinds = new Map<string, KeyKind>();
const KEY_KINDS_MAX = 4096;

function keyKind(key: string): KeyKind {
  let kind = caching ? keyKinds.get(key) : undefined;
  if (kind === undefined) {
    kind = SENSITIVE_KEY.test(key) ? KeyKind.sensitive : POSSIBLY_SENSITIVE_KEY.test(key) ? KeyKind.possiblySensitive : KeyKind.plain;
    if (keyKinds.size < KEY_KINDS_MAX) keyKinds.set(key, kind);
  }
  return kind;
}

/**
 * An audit event, masked in one pass. The agent's input (which may hold whole files) is cut to
 * 2,000 characters a string; the broker's own fields are kept whole.
 */
export function maskEvent(event: object): unknown {
  return maskValue(event, 0, Number.POSITIVE_INFINITY);
}

/** `{ name: 'API_TOKEN', value: '…' }` (ACP env lists), `{ key: …, value: … }`: the name, when the object is such a pair. */
function namedPairName(record: Record<string, unknown>): string | undefined {
  if (!Object.hasOwn(record, 'value')) return undefined;
  const name = record.name ?? record.key;
  return typeof name === 'string' ? name : undefined;
}

/**
 * A token rather than a word, a path or a sentence: long, letters and digits, no spaces or
 * slashes, and high Shannon entropy (a random 16-character token scores about 3.5 bits a character; English words stay below 3).
 */
export function looksRandom(text: string): boolean {
  if (text.length < 16 || /[\s/\\]/.test(text) || !/\d/.test(text) || !/[A-Za-z]/.test(text)) return false;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    entropy -= p * Math.log2(p);
  }
  return entropy >= 3.2;
}

/** An own data property even for a key such as `__proto__`, which plain assignment would not create. */
function defineEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
