/** Secrets never reach the audit log: sensitive keys and well-known token shapes are masked. */
const SENSITIVE_KEY = /(pass(word|wd)?|secret|token|api[_-]?key|auth(orization)?|credential|private[_-]?key|cookie|session[_-]?key)/i;
const TOKEN_SHAPES: readonly RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{12,}/g, // OpenAI/Anthropic/Stripe-style keys
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google API keys
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];
/** `Bearer x`, `--password=x`, `API_KEY=x` inside command lines and text. */
const INLINE_SECRETS: readonly RegExp[] = [
  /(\bBearer\s+)[^\s'"]+/gi,
  /(--?(?:password|passwd|token|secret|api-key|apikey)[= ])[^\s'"]+/gi,
  /(\b[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY)[A-Z0-9_]*=)[^\s'"]+/g,
];
/**
 * Every pattern above needs one of these words, in some letter case. Most strings hold none, and one
 * test is far cheaper than ten replacements. Must stay a superset of the patterns (a property test
 * checks it): a miss here would leak a secret into the log.
 */
const MAY_HOLD_SECRET = /sk-|pk-|rk-|gh[pousr]_|github_pat_|akia|aiza|xox[abposr]-|-----begin|bearer|passw|token|secret|api[-_]?key|access_key/i;
const MASK = '***';
const MAX_STRING = 2000;
const MAX_DEPTH = 8;

export function maskText(text: string): string {
  const out = MAY_HOLD_SECRET.test(text) ? maskEveryPattern(text) : text;
  return out.length > MAX_STRING ? `${out.slice(0, MAX_STRING)}… (${out.length - MAX_STRING} more characters)` : out;
}

/** Every pattern applied, without the quick pre-check (exported so tests can hold the two equal). */
export function maskEveryPattern(text: string): string {
  let out = text;
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, MASK);
  for (const inline of INLINE_SECRETS) out = out.replace(inline, `$1${MASK}`);
  return out;
}

/**
 * `value` with sensitive keys and strings masked. Copy on write: what needs no masking is returned
 * as it is (the audit line is serialized at once, and the broker never mutates parsed messages), so
 * the usual input costs a walk, not a copy.
 */
export function maskValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '(nested too deep)';
  if (Array.isArray(value)) {
    const kept = value.length > MAX_ITEMS ? value.slice(0, MAX_ITEMS) : value;
    let out: unknown[] | undefined = kept === value ? undefined : kept;
    for (let i = 0; i < kept.length; i++) {
      const masked = maskValue(kept[i], depth + 1);
      if (masked === kept[i]) continue;
      out ??= kept.slice();
      out[i] = masked;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  const entries = Object.entries(value);
  for (let i = 0; i < entries.length; i++) {
    const [key, v] = entries[i]!;
    const masked = SENSITIVE_KEY.test(key) && (typeof v === 'string' || typeof v === 'number') ? MASK : maskValue(v, depth + 1);
    if (masked === v && out === undefined) continue;
    if (out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) defineEntry(out, entries[j]![0], entries[j]![1]);
    }
    defineEntry(out, key, masked);
  }
  return out ?? value;
}

const MAX_ITEMS = 100;

/** An own data property even for a key such as `__proto__`, which plain assignment would not create. */
function defineEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
