/**
 * Reading a runner's words against an allowlist of its options, as parsers with `--long`, `--long=v`
 * and clustered short letters read them (clap, argparse, getopts): what is not in the table is not
 * modelled, so its word is refused. No abbreviations: clap and pytest's argparse
 * (allow_abbrev=False) take none, and neither does libtest's getopts (all checked with the real
 * programs). npm's nopt reads options differently: nopt-options.ts.
 */

/** Why a value is refused; undefined when it is accepted. */
export type ValueCheck = (value: string) => string | undefined;

/** An option without a value, with one (`--x v`, `--x=v`, `-xv`, `-x v`), or with one that may be left out. */
export type Arity =
  | { readonly takes: 'nothing' }
  | { readonly takes: 'value'; readonly check?: ValueCheck }
  /** clap `[<V>]` / argparse `nargs='?'`: the next word is the value unless it starts with `-`. */
  | { readonly takes: 'optional'; readonly check?: ValueCheck };

export const FLAG: Arity = { takes: 'nothing' };
export const VALUE: Arity = { takes: 'value' };
export const OPTIONAL: Arity = { takes: 'optional' };
export const checked = (check: ValueCheck): Arity => ({ takes: 'value', check });
export const oneOf = (...values: string[]): Arity => checked((value) => (values.includes(value) ? undefined : `takes ${values.join('|')}`));

export interface OptionTable {
  /** Long names without dashes. */
  readonly long: ReadonlyMap<string, Arity>;
  /** Short letters. */
  readonly short: ReadonlyMap<string, Arity>;
  /** Options that run, load or write what the line chose: their own message (`--config`). */
  readonly hazards?: ReadonlyMap<string, string>;
}

export interface Reading {
  readonly positionals: readonly string[];
  /** The words after `--`, when there is one. */
  readonly trailing: readonly string[] | undefined;
}

export const table = (long: Record<string, Arity>, short: Record<string, Arity> = {}, hazards: Record<string, string> = {}): OptionTable => ({
  long: new Map(Object.entries(long)),
  short: new Map(Object.entries(short)),
  hazards: new Map(Object.entries(hazards)),
});

/**
 * The positionals and trailing words of `args`, or why a word is refused (`program` names it). A
 * separate value that starts with `-` must pass as a value and, read again, as an option: parsers
 * differ on whether they take it (argparse and clap refuse it, getopts takes it).
 */
export function readOptions(program: string, args: readonly string[], options: OptionTable): Reading | string {
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    if (word === '--') return { positionals, trailing: args.slice(index + 1) };
    if (!word.startsWith('-') || word === '-') {
      positionals.push(word);
      continue;
    }
    const next = args[index + 1];
    const result = word.startsWith('--') ? readLong(program, word, next, options) : readShort(program, word, next, options);
    if (typeof result === 'string') return result;
    index += result;
  }
  return { positionals, trailing: undefined };
}

/** How many following words an option took as its value, or why it is refused. */
type Step = 0 | 1 | string;

function readLong(program: string, word: string, next: string | undefined, options: OptionTable): Step {
  const equals = word.indexOf('=');
  const name = word.slice(2, equals === -1 ? undefined : equals);
  const hazard = options.hazards?.get(`--${name}`);
  if (hazard) return `${program} --${name} ${hazard}`;
  const arity = options.long.get(name);
  if (!arity) return `${program} --${name}: an option the analysis does not know`;
  return takeValue(program, `--${name}`, arity, equals === -1 ? undefined : word.slice(equals + 1), next);
}

function readShort(program: string, word: string, next: string | undefined, options: OptionTable): Step {
  for (let at = 1; at < word.length; at++) {
    const letter = word[at]!;
    const hazard = options.hazards?.get(`-${letter}`);
    if (hazard) return `${program} -${letter} ${hazard}`;
    const arity = options.short.get(letter);
    if (!arity) return `${program} -${letter}: an option the analysis does not know`;
    if (arity.takes === 'nothing') continue;
    // The rest of the word is the value (`-j4`, `-kparse`; clap and argparse also drop one `=`: `-p=x`).
    const glued = word.slice(at + 1).replace(/^=/, '');
    return takeValue(program, `-${letter}`, arity, at + 1 < word.length ? glued : undefined, next);
  }
  return 0;
}

function takeValue(program: string, option: string, arity: Arity, inline: string | undefined, next: string | undefined): Step {
  if (arity.takes === 'nothing') return inline === undefined ? 0 : `${program} ${option}=${inline}: a value for an option that takes none`;
  const refuse = (value: string) => {
    const why = arity.check?.(value);
    return why ? `${program} ${option} ${value}: ${why}` : undefined;
  };
  if (inline !== undefined) return refuse(inline) ?? 0;
  if (next === undefined) return 0;
  // getopts takes `--` as the value and reads on (`cargo test -- --skip -- --logfile x` wrote x); clap and argparse refuse it.
  if (next === '--') return arity.takes === 'optional' ? 0 : `${program} ${option} --: a value that may end the options or not`;
  if (next.startsWith('-') && next !== '-') return arity.takes === 'optional' ? 0 : (refuse(next) ?? 0);
  return refuse(next) ?? 1;
}
