/**
 * A policy path pattern (minimatch syntax, `dot: true`, anchored to an absolute path or starting
 * with `**`) as an automaton over the paths it matches, for intersecting with bash globs. Exact for
 * `**`, `*`, `?`, `[…]`, `{a,b}` and `\x`; an extglob component (`+(a|b)`, `!(x)`) is widened to
 * `*`, which only ever makes a deny rule match more.
 */
import { braceExpand } from 'minimatch';
import { NfaBuilder, type Nfa } from './glob-automaton.js';
import { ANY_BUT_SLASH, ANY_CHAR, literal, parseBracket } from './glob-chars.js';

const SLASH = literal('/');
const EXTGLOB = /[@!+*?]\(/;

export function policyPatternNfa(pattern: string): Nfa {
  const builder = new NfaBuilder();
  const start = builder.state();
  // As makeGlob: `DIR/**` matches DIR itself when DIR is literal as written.
  const dirItself = pattern.endsWith('/**') && !/[*?[\]{}]/.test(pattern.slice(0, -3));
  for (const alternative of braceExpand(pattern)) {
    const entry = builder.state();
    builder.skip(start, entry);
    addAlternative(builder, entry, alternative.startsWith('**') ? `/${alternative}` : alternative, dirItself);
  }
  return builder.build(start);
}

/** Components after the leading `/`, each after a `/`: `**` spans any number of whole components. */
function addAlternative(builder: NfaBuilder, entry: number, pattern: string, dirItself: boolean): void {
  const components = pattern.split('/').slice(1);
  let current = entry;
  let afterSlash = false;
  components.forEach((component, index) => {
    const last = index === components.length - 1;
    if (component === '**' && last) {
      // `dir/**` also matches `dir` itself (see makeGlob), and anything below it.
      const below = builder.state();
      builder.edge(current, afterSlash ? ANY_CHAR : SLASH, below);
      builder.edge(below, ANY_CHAR, below);
      builder.accept(below);
      if (dirItself) builder.accept(current);
      return;
    }
    if (!afterSlash) {
      const next = builder.state();
      builder.edge(current, SLASH, next);
      current = next;
    }
    afterSlash = false;
    if (component === '**') {
      // Zero or more `name/`; the state after them is again just after a `/`.
      const inName = builder.state();
      builder.edge(current, ANY_BUT_SLASH, inName);
      builder.edge(inName, ANY_BUT_SLASH, inName);
      builder.edge(inName, SLASH, current);
      afterSlash = true;
      return;
    }
    current = addComponent(builder, current, EXTGLOB.test(component) ? '*' : component);
  });
  if (components[components.length - 1] !== '**') builder.accept(current);
}

function addComponent(builder: NfaBuilder, from: number, component: string): number {
  let current = from;
  for (let i = 0; i < component.length;) {
    const ch = component[i]!;
    if (ch === '*') {
      while (component[i] === '*') i++;
      builder.edge(current, ANY_BUT_SLASH, current);
      continue;
    }
    const next = builder.state();
    if (ch === '?') {
      builder.edge(current, ANY_BUT_SLASH, next);
      i++;
    } else if (ch === '[' && parseBracket(component, i, false)) {
      const bracket = parseBracket(component, i, false)!;
      builder.edge(current, bracket.set, next);
      i = bracket.end;
    } else {
      const escaped = ch === '\\' && i + 1 < component.length;
      const char = String.fromCodePoint((escaped ? component.slice(i + 1) : component.slice(i)).codePointAt(0)!);
      builder.edge(current, literal(char), next);
      i += (escaped ? 1 : 0) + char.length;
    }
    current = next;
  }
  return current;
}
