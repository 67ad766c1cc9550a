/**
 * Nondeterministic automata over the characters of a path, and the test whether two of them accept
 * a common path (the product automaton is not empty): a bash glob and a policy pattern intersect.
 */
import { commonChar, contains as containsChar, type CharSet } from './glob-chars.js';

export interface Nfa {
  readonly start: number;
  readonly accepting: ReadonlySet<number>;
  /** Per state: the character edges leaving it. */
  readonly edges: readonly (readonly { readonly set: CharSet; readonly to: number }[])[];
  /** Per state: the states reached without reading a character. */
  readonly epsilon: readonly (readonly number[])[];
}

export class NfaBuilder {
  private readonly edges: { set: CharSet; to: number }[][] = [];
  private readonly epsilon: number[][] = [];
  private readonly accepting = new Set<number>();

  state(): number {
    this.edges.push([]);
    this.epsilon.push([]);
    return this.edges.length - 1;
  }

  edge(from: number, set: CharSet, to: number): void {
    this.edges[from]!.push({ set, to });
  }

  skip(from: number, to: number): void {
    this.epsilon[from]!.push(to);
  }

  accept(state: number): void {
    this.accepting.add(state);
  }

  build(start: number): Nfa {
    return { start, accepting: this.accepting, edges: this.edges, epsilon: this.epsilon };
  }
}

function closure(nfa: Nfa, states: Iterable<number>): number[] {
  const seen = new Set<number>(states);
  const stack = [...seen];
  while (stack.length > 0) {
    for (const next of nfa.epsilon[stack.pop()!]!) {
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return [...seen];
}

/**
 * A path both automata accept (one shortest in characters), or undefined when there is none.
 * Breadth-first over pairs of states; a pair of edges is followed when their sets share a character.
 */
export function commonWord(a: Nfa, b: Nfa): string | undefined {
  const width = b.edges.length;
  const parent = new Map<number, { from: number; char: number } | null>();
  const queue: number[] = [];
  for (const x of closure(a, [a.start])) {
    for (const y of closure(b, [b.start])) {
      const key = x * width + y;
      if (!parent.has(key)) {
        parent.set(key, null);
        queue.push(key);
      }
    }
  }
  for (let head = 0; head < queue.length; head++) {
    const key = queue[head]!;
    const x = Math.floor(key / width);
    const y = key % width;
    if (a.accepting.has(x) && b.accepting.has(y)) return wordTo(key, parent);
    for (const ea of a.edges[x]!) {
      for (const eb of b.edges[y]!) {
        const char = commonChar(ea.set, eb.set);
        if (char === undefined) continue;
        for (const nx of closure(a, [ea.to])) {
          for (const ny of closure(b, [eb.to])) {
            const next = nx * width + ny;
            if (parent.has(next)) continue;
            parent.set(next, { from: key, char });
            queue.push(next);
          }
        }
      }
    }
  }
  return undefined;
}

function wordTo(key: number, parent: ReadonlyMap<number, { from: number; char: number } | null>): string {
  const chars: number[] = [];
  for (let step = parent.get(key); step; step = parent.get(step.from)) chars.push(step.char);
  return String.fromCodePoint(...chars.reverse());
}

/** Whether the automaton accepts exactly this string. */
export function accepts(nfa: Nfa, word: string): boolean {
  let current = closure(nfa, [nfa.start]);
  for (const ch of word) {
    const code = ch.codePointAt(0)!;
    const next = new Set<number>();
    for (const state of current) {
      for (const e of nfa.edges[state]!) if (containsChar(e.set, code)) next.add(e.to);
    }
    current = closure(nfa, next);
    if (current.length === 0) return false;
  }
  return current.some((state) => nfa.accepting.has(state));
}
