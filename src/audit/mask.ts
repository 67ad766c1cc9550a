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

export function maskValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '(nested too deep)';
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => maskValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SENSITIVE_KEY.test(key) && (typeof v === 'string' || typeof v === 'number') ? MASK : maskValue(v, depth + 1);
  }
  return out;
}
