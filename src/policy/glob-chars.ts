/**
 * Sets of characters one glob position can match, shared by the bash-glob and the policy-pattern
 * automata, and the test whether two of them have a character in common.
 */

/** One character of a path (never `/`, unless `slash`). */
export type CharSet =
  /** Any single character except `/`; `noDot`: not `.` either (bash, first character of a file name). */
  | { readonly type: 'any'; readonly noDot: boolean; readonly slash: boolean }
  | { readonly type: 'char'; readonly char: number }
  /**
   * A bracket expression. `named`: it holds a class like `[:alpha:]`, not modelled exactly, so the
   * set is widened to any character (only ever used to over-approximate what may match).
   */
  | { readonly type: 'class'; readonly negated: boolean; readonly ranges: readonly (readonly [number, number])[]; readonly named: boolean; readonly noDot: boolean };

const SLASH = 0x2f;
const DOT = 0x2e;
const MAX_CODE_POINT = 0x10ffff;

export const ANY_BUT_SLASH: CharSet = { type: 'any', noDot: false, slash: false };
export const ANY_CHAR: CharSet = { type: 'any', noDot: false, slash: true };

export function literal(char: string): CharSet {
  return { type: 'char', char: char.codePointAt(0)! };
}

export function contains(set: CharSet, code: number): boolean {
  switch (set.type) {
    case 'char': return set.char === code;
    case 'any': return (set.slash || code !== SLASH) && !(set.noDot && code === DOT);
    case 'class': {
      if (code === SLASH || (set.noDot && code === DOT)) return false;
      if (set.named) return true;
      const inRanges = set.ranges.some(([lo, hi]) => code >= lo && code <= hi);
      return set.negated ? !inRanges : inRanges;
    }
  }
}

/**
 * A character in both sets, or undefined. Each set is a union of code-point intervals; an interval
 * of their intersection starts at 0 or next to a bound of one of them, so those points suffice.
 */
export function commonChar(a: CharSet, b: CharSet): number | undefined {
  if (a.type === 'char') return contains(b, a.char) ? a.char : undefined;
  if (b.type === 'char') return contains(a, b.char) ? b.char : undefined;
  const points = new Set<number>([0, MAX_CODE_POINT, 'a'.codePointAt(0)!]);
  for (const set of [a, b]) {
    for (const bound of boundsOf(set)) {
      for (const p of [bound - 1, bound, bound + 1]) if (p >= 0 && p <= MAX_CODE_POINT) points.add(p);
    }
  }
  for (const p of [...points].sort((x, y) => x - y)) if (contains(a, p) && contains(b, p)) return p;
  return undefined;
}

function boundsOf(set: CharSet): number[] {
  const bounds = [SLASH, DOT];
  if (set.type === 'class') for (const [lo, hi] of set.ranges) bounds.push(lo, hi);
  return bounds;
}

const NAMED_CLASS = /^\[:([a-z]+):\]/;

/**
 * Parses a bracket expression at `source[start] === '['`; undefined when it is not one (no closing
 * `]`: then `[` is an ordinary character). `!` and `^` negate; `]` first is literal; `a-z` ranges;
 * `\x` escapes; `[:name:]` classes.
 */
export function parseBracket(source: string, start: number, noDot: boolean): { set: CharSet; end: number } | undefined {
  let i = start + 1;
  let negated = false;
  if (source[i] === '!' || source[i] === '^') {
    negated = true;
    i++;
  }
  const ranges: [number, number][] = [];
  let named = false;
  let first = true;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === ']' && !first) return { set: { type: 'class', negated, ranges, named, noDot }, end: i + 1 };
    first = false;
    if (ch === '/') return undefined;
    const namedClass = ch === '[' ? NAMED_CLASS.exec(source.slice(i)) : null;
    if (namedClass) {
      named = true;
      i += namedClass[0].length;
      continue;
    }
    let lo = ch;
    if (ch === '\\' && i + 1 < source.length) lo = source[++i]!;
    i++;
    if (source[i] === '-' && i + 1 < source.length && source[i + 1] !== ']') {
      let hi = source[i + 1]!;
      i += 2;
      if (hi === '\\' && i < source.length) hi = source[i++]!;
      ranges.push([lo.codePointAt(0)!, hi.codePointAt(0)!]);
    } else {
      ranges.push([lo.codePointAt(0)!, lo.codePointAt(0)!]);
    }
  }
  return undefined;
}
