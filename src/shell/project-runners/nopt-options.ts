/**
 * Options as nopt reads them (npm, pnpm), and the variants npx-cli and yarn apply: a table of the
 * options a line may give, read one word (or word and value) at a time. vitest-words.ts reads cac's
 * options with the same specs. Parsers that take no abbreviations and cluster short letters: exact-options.ts.
 */
import { abbreviates } from './options.js';

/**
 * One option a package manager is known to read without running, loading or moving anything the line
 * chose. Options are looked up by their exact spelling: nopt (npm, pnpm) also takes unique prefixes,
 * but a prefix is never an entry here, so it is never allowed.
 */
export type OptionSpec =
  /** Takes no value. nopt also reads a following `true`/`false` (and `switchWords`) as its value. */
  | { readonly kind: 'switch'; readonly negatable?: boolean; readonly switchWords?: readonly string[] }
  /** A shorthand for an option and its value (npm `-s` = `--loglevel silent`): takes no word of the line. */
  | { readonly kind: 'fixed' }
  /** The next word, or the text after `=`, is its value; `valid` says which values are inert. */
  | { readonly kind: 'value'; readonly valid: (value: string) => boolean };

export interface OptionTable {
  readonly program: string;
  /** By name without the dashes: `--silent` → `silent`. */
  readonly long: ReadonlyMap<string, OptionSpec>;
  /** By the word without its dash: `-ws` → `ws`. Letters run together (`-sy`) are not read. */
  readonly short: ReadonlyMap<string, OptionSpec>;
  /** nopt reads `true`/`false` after a switch as its value; npx's own first pass and yarn do not. */
  readonly switchTakesBoolean: boolean;
  /** `--no-NAME` turns a negatable switch off (npx's first pass reads it as an option that takes the next word). */
  readonly negation: boolean;
  /** Long options known to run, load or move what the line chose (matched by prefix, for a clearer message). */
  readonly hazards: readonly string[];
  /** Short options known to stand for one of `hazards` (npm `-C` = `--prefix`). */
  readonly shortHazards: ReadonlyMap<string, string>;
  /** Why an option that is not in the table is not allowed. */
  readonly unknown: string;
}

/** How many words an allowed option spans, or why it is not allowed. */
export type OptionReading = { readonly span: number } | { readonly problem: string };

const BOOLEAN_WORDS = ['true', 'false'];

/** The option at `words[at]` (a word starting with `-`, not `--`) as `table`'s program reads it. */
export function readOption(table: OptionTable, words: readonly string[], at: number): OptionReading {
  const word = words[at]!;
  const isLong = word.startsWith('--');
  const equals = word.indexOf('=');
  const name = word.slice(isLong ? 2 : 1, equals === -1 ? undefined : equals);
  const inline = equals === -1 ? undefined : word.slice(equals + 1);
  let spec = (isLong ? table.long : table.short).get(name);
  let negated = false;
  if (spec === undefined && isLong && table.negation && name.startsWith('no-')) {
    const base = table.long.get(name.slice(3));
    if (base?.kind === 'switch' && base.negatable) [spec, negated] = [base, true];
  }
  if (spec === undefined) return { problem: unknownOption(table, word, name, isLong) };
  const rejected = { problem: `${table.program} ${word}: a value the analysis does not accept` };
  if (spec.kind === 'fixed') return inline === undefined ? { span: 1 } : rejected;
  if (spec.kind === 'value' && !negated) {
    if (inline !== undefined) return spec.valid(inline) ? { span: 1 } : rejected;
    const next = words[at + 1];
    if (next === undefined || !spec.valid(next)) return { problem: `${table.program} ${word} ${next ?? ''}: a value the analysis does not accept`.trimEnd() };
    return { span: 2 };
  }
  const values = [...BOOLEAN_WORDS, ...(spec.kind === 'switch' ? (spec.switchWords ?? []) : [])];
  if (inline !== undefined) return values.includes(inline) ? { span: 1 } : rejected;
  const next = words[at + 1];
  return { span: table.switchTakesBoolean && next !== undefined && values.includes(next) ? 2 : 1 };
}

function unknownOption(table: OptionTable, word: string, name: string, isLong: boolean): string {
  const hazard = isLong ? abbreviates(name.replace(/^no-/, ''), table.hazards) : [...name].map((letter) => table.shortHazards.get(letter)).find(Boolean);
  if (hazard) return `${table.program} --${hazard} runs, loads or moves what the line chose`;
  return `${table.program} ${word}: ${table.unknown}`;
}

/** Value checks shared by the tables. */
export const oneOf = (...values: string[]) => (value: string) => values.includes(value);
export const count = (value: string) => /^\d+$/.test(value);

/**
 * A workspace or package selector: a name (`@scope/a`) or a path inside the project, without `..`
 * segments, a leading `/` or `~`, or a leading `-` (an option nopt would take instead).
 */
export function projectSelector(value: string): boolean {
  return /^[@A-Za-z0-9._/!^{}*-]+$/.test(value) && !/^[-/~]|^\{\//.test(value) && !value.split(/[/{}]/).includes('..');
}
