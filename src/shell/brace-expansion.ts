/**
 * Bash brace expansion (`a{b,c}d`, `{1..3}`, `-{r,f}`), which happens before anything else and can
 * turn one written word into several argv words: `{rm,-rf,/}` runs `rm -rf /`.
 */

export interface WordChar {
  readonly c: string;
  /** Quoted or escaped: no brace, glob or tilde meaning. */
  readonly quoted: boolean;
  /** Comes from an expansion only known at run time. */
  readonly dynamic: boolean;
}

/** Most words a single written word may expand to before we give up and call it unresolvable. */
const MAX_BRACE_WORDS = 256;

/** All expansions of `chars`, or undefined when there would be more than MAX_BRACE_WORDS. */
export function expandBraces(chars: readonly WordChar[]): WordChar[][] | undefined {
  const out: WordChar[][] = [];
  return expandInto(chars, out) ? out : undefined;
}

function expandInto(chars: readonly WordChar[], out: WordChar[][]): boolean {
  const brace = findBrace(chars);
  if (!brace) {
    out.push([...chars]);
    return out.length <= MAX_BRACE_WORDS;
  }
  const prefix = chars.slice(0, brace.open);
  const suffix = chars.slice(brace.close + 1);
  for (const alternative of brace.alternatives) {
    if (!expandInto([...prefix, ...alternative, ...suffix], out)) return false;
  }
  return true;
}

interface Brace {
  readonly open: number;
  readonly close: number;
  readonly alternatives: readonly (readonly WordChar[])[];
}

const isActive = (ch: WordChar | undefined, c: string): boolean => !!ch && ch.c === c && !ch.quoted && !ch.dynamic;

/** The first `{…}` that bash would expand: with a top-level comma, or a valid sequence. */
function findBrace(chars: readonly WordChar[]): Brace | undefined {
  for (let open = 0; open < chars.length; open++) {
    if (!isActive(chars[open], '{')) continue;
    const close = matchingClose(chars, open);
    if (close === undefined) continue;
    const inner = chars.slice(open + 1, close);
    const alternatives = splitTopLevelCommas(inner) ?? sequence(inner);
    if (alternatives) return { open, close, alternatives };
  }
  return undefined;
}

function matchingClose(chars: readonly WordChar[], open: number): number | undefined {
  let depth = 0;
  for (let i = open + 1; i < chars.length; i++) {
    if (isActive(chars[i], '{')) depth++;
    else if (isActive(chars[i], '}')) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return undefined;
}

function splitTopLevelCommas(inner: readonly WordChar[]): WordChar[][] | undefined {
  const parts: WordChar[][] = [[]];
  let depth = 0;
  for (const ch of inner) {
    if (isActive(ch, '{')) depth++;
    else if (isActive(ch, '}')) depth--;
    if (depth === 0 && isActive(ch, ',')) parts.push([]);
    else parts[parts.length - 1]!.push(ch);
  }
  return parts.length > 1 ? parts : undefined;
}

const NUMERIC_SEQUENCE = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/;
const LETTER_SEQUENCE = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?$/;

function sequence(inner: readonly WordChar[]): WordChar[][] | undefined {
  if (inner.some((ch) => ch.quoted || ch.dynamic)) return undefined;
  const text = inner.map((ch) => ch.c).join('');
  const numeric = NUMERIC_SEQUENCE.exec(text);
  const letters = numeric ? undefined : LETTER_SEQUENCE.exec(text);
  const match = numeric ?? letters;
  if (!match) return undefined;
  const from = numeric ? Number(match[1]) : match[1]!.charCodeAt(0);
  const to = numeric ? Number(match[2]) : match[2]!.charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  if (Math.abs(to - from) / step >= MAX_BRACE_WORDS) {
    // Too many to list: one impossible placeholder word per step would blow the limit anyway.
    return Array.from({ length: MAX_BRACE_WORDS + 1 }, () => []);
  }
  const width = numeric ? zeroPadWidth(match[1]!, match[2]!) : 0;
  const words: WordChar[][] = [];
  const direction = to >= from ? 1 : -1;
  for (let value = from; direction > 0 ? value <= to : value >= to; value += direction * step) {
    const word = numeric ? padNumber(value, width) : String.fromCharCode(value);
    words.push([...word].map((c) => ({ c, quoted: true, dynamic: false })));
  }
  return words;
}

function zeroPadWidth(from: string, to: string): number {
  const padded = (s: string) => /^-?0\d/.test(s);
  return padded(from) || padded(to) ? Math.max(from.length, to.length) : 0;
}

function padNumber(value: number, width: number): string {
  const digits = String(Math.abs(value)).padStart(width - (value < 0 ? 1 : 0), '0');
  return value < 0 ? `-${digits}` : digits;
}
