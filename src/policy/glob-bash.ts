/**
 * A bash filename-expansion pattern (`/w/.git/hook[s]/*`) as an automaton over the paths it can
 * expand to: `*`, `?`, `[…]` (`[!…]`, `[^…]`, ranges, `[:class:]`) never match `/`. `\x` is literal.
 * Widened where a shell's options may widen it — the agent's shell may persist between calls, with
 * options an earlier line set: `**` crosses `/` (zsh, bash's globstar) and a wildcard may match the
 * leading `.` of a file name (bash's dotglob, zsh's globdots). Accepting more only ever makes a deny
 * rule match more; an allow needs containment, which dot files do not escape.
 */
import { NfaBuilder, type Nfa } from './glob-automaton.js';
import { ANY_CHAR, literal, parseBracket, type CharSet } from './glob-chars.js';

/** `deep`: a run of two or more stars, which zsh and bash's globstar let cross `/`. */
type Token = { readonly type: 'set'; readonly set: (noDot: boolean) => CharSet } | { readonly type: 'star'; readonly deep: boolean };

const ANY = (noDot: boolean): CharSet => ({ type: 'any', noDot, slash: false });

function tokensOf(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length;) {
    const ch = pattern[i]!;
    if (ch === '*') {
      let run = 0;
      while (pattern[i] === '*') {
        run++;
        i++;
      }
      tokens.push({ type: 'star', deep: run > 1 });
    } else if (ch === '?') {
      tokens.push({ type: 'set', set: ANY });
      i++;
    } else if (ch === '[') {
      const bracket = parseBracket(pattern, i, false);
      if (bracket) {
        const set = bracket.set;
        tokens.push({ type: 'set', set: (noDot) => (set.type === 'class' ? { ...set, noDot } : set) });
        i = bracket.end;
      } else {
        tokens.push({ type: 'set', set: () => literal('[') });
        i++;
      }
    } else {
      const escaped = ch === '\\' && i + 1 < pattern.length;
      const char = String.fromCodePoint((escaped ? pattern.slice(i + 1) : pattern.slice(i)).codePointAt(0)!);
      tokens.push({ type: 'set', set: () => literal(char) });
      i += (escaped ? 1 : 0) + char.length;
    }
  }
  return tokens;
}

/**
 * Where a file name stands: `inside` it, at its `start` (a literal `.` may come), or at its start
 * after a `*` that matched nothing (no `.` at all: bash matches a leading `.` only with a `.` first).
 */
type Mode = 0 | 1 | 2;
const INSIDE: Mode = 0;
const START: Mode = 1;
const AFTER_STAR: Mode = 2;
const DOT = 0x2e;
/** A wildcard may match a leading `.` (see the top of this file). */
const DOTGLOB = true;

/** States are (token position, mode). */
export function bashGlobNfa(pattern: string, dotglob = DOTGLOB): Nfa {
  const tokens = tokensOf(pattern);
  const builder = new NfaBuilder();
  const ids: number[] = [];
  for (let i = 0; i <= tokens.length; i++) ids.push(builder.state(), builder.state(), builder.state());
  const id = (position: number, mode: Mode) => ids[position * 3 + mode]!;
  tokens.forEach((token, position) => {
    for (const mode of [INSIDE, START, AFTER_STAR]) {
      const from = id(position, mode);
      const atStart = mode !== INSIDE;
      if (token.type === 'star') {
        builder.skip(from, id(position + 1, atStart ? AFTER_STAR : INSIDE));
        // A deep star may also cross `/` and reach dot files (matching more only ever makes a deny rule match more).
        builder.edge(from, token.deep ? ANY_CHAR : ANY(atStart && !dotglob), id(position, INSIDE));
        continue;
      }
      const set = token.set(atStart && !dotglob);
      if (set.type === 'char') {
        if (set.char === DOT && mode === AFTER_STAR && !dotglob) continue;
        builder.edge(from, set, id(position + 1, set.char === 0x2f ? START : INSIDE));
      } else {
        builder.edge(from, set, id(position + 1, INSIDE));
      }
    }
  });
  for (const mode of [INSIDE, START, AFTER_STAR]) builder.accept(id(tokens.length, mode));
  return builder.build(id(0, START));
}

/** One file name of a bash glob as a regular expression, for expanding it against a directory listing. */
export function bashComponentRegExp(component: string): RegExp {
  const tokens = tokensOf(component);
  const first = tokens[0];
  const firstSet = first?.type === 'set' ? first.set(false) : undefined;
  const dotFirst = firstSet?.type === 'char' && firstSet.char === DOT;
  const body = tokens.map((token) => (token.type === 'star' ? '[^/]*' : charSetRegExp(token.set(false)))).join('');
  return new RegExp(`^${dotFirst || DOTGLOB ? '' : '(?!\\.)'}${body}$`, 'su');
}

function charSetRegExp(set: CharSet): string {
  switch (set.type) {
    case 'char': return escapeRegExp(String.fromCodePoint(set.char));
    case 'any': return '[^/]';
    case 'class': {
      if (set.named) return '[^/]';
      const ranges = set.ranges.map(([lo, hi]) => `\\u{${lo.toString(16)}}-\\u{${hi.toString(16)}}`).join('');
      return set.negated ? `[^/${ranges}]` : `(?!/)[${ranges}]`;
    }
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
