/**
 * Splits an argv into positional words and options, the same way for a command and for a pattern,
 * so that spelling differences disappear: `-rf` = `-r -f`, `--output=x` = `--output x`, aliases
 * become one key, option values are not positional, and git's global options are skipped.
 */
import { programSpec, type OptionTable } from './option-specs.js';

export interface OptionUse {
  /** The option keys this use sets (canonical names; unknown options keep their spelling). */
  readonly keys: readonly string[];
  readonly spelling: string;
  readonly value: string | undefined;
  /** An unknown multi-letter short cluster as a whole (`-name`), besides its letters. */
  readonly whole: boolean;
  /**
   * A prefix of several long options (or of one, where we do not know them all): `keys` are those
   * of every option it could be. Counts for deny rules, never for allow rules.
   */
  readonly ambiguous?: boolean;
  /**
   * An unknown long option where the parser takes prefixes and we do not know all options: it may
   * be any option whose name starts with it (for deny rules).
   */
  readonly openPrefix?: boolean;
}

export interface CommandShape {
  /** Non-option words after the program, in order. */
  readonly positionals: readonly string[];
  readonly options: readonly OptionUse[];
  /** An ambiguous prefix may or may not take the next word as its value: positionals are uncertain. */
  readonly uncertain: boolean;
}

const EMPTY_TABLE: OptionTable = { aliases: {}, valued: new Set() };

/** `args` are the words after the program word. */
export function shapeOf(program: string, args: readonly string[]): CommandShape {
  const spec = programSpec(program);
  let table: OptionTable = spec;
  let awaitingSubcommand = !!spec.subcommands;
  const positionals: string[] = [];
  const options: OptionUse[] = [];
  const state = { uncertain: false };
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (optionsEnded || !isOption(word)) {
      positionals.push(word);
      if (awaitingSubcommand) {
        table = spec.subcommands && Object.hasOwn(spec.subcommands, word) ? spec.subcommands[word]! : spec.otherSubcommands ?? EMPTY_TABLE;
        awaitingSubcommand = false;
      }
      const implied = table.positionalImplies?.(word) ?? [];
      if (implied.length > 0) options.push({ keys: implied, spelling: word, value: undefined, whole: false });
      continue;
    }
    if (word === '--') {
      optionsEnded = true;
      continue;
    }
    const next = args[i + 1];
    const consumed = word.startsWith('--') ? longOption(table, word, next, options, state) : shortCluster(table, word, next, options);
    if (consumed) i++;
  }
  return { positionals, options, uncertain: state.uncertain };
}

function isOption(word: string): boolean {
  return word.length > 1 && word.startsWith('-');
}

/** Returns true when the next word was consumed as the value. */
function longOption(table: OptionTable, word: string, next: string | undefined, out: OptionUse[], state: { uncertain: boolean }): boolean {
  const equals = word.indexOf('=');
  const written = equals === -1 ? word : word.slice(0, equals);
  const { name, keys, valued, ambiguous } = resolveLongName(table, written);
  if (valued === 'some') state.uncertain = true;
  const openPrefix = table.abbreviations?.complete === false && !table.abbreviations.names.includes(written) && !Object.hasOwn(table.aliases, written) && !table.valued.has(written);
  const use = (value: string | undefined): OptionUse => {
    const plain: OptionUse = { keys, spelling: name, value, whole: false };
    return ambiguous || openPrefix ? { ...plain, ambiguous: true, ...(openPrefix ? { openPrefix } : {}) } : plain;
  };
  if (equals !== -1) {
    out.push(use(word.slice(equals + 1)));
    return false;
  }
  const takesValue = valued === 'all' && next !== undefined;
  out.push(use(takesValue ? next : undefined));
  return takesValue;
}

interface LongName {
  readonly name: string;
  readonly keys: readonly string[];
  /** Whether it takes a value: 'some' when an ambiguous prefix's candidates disagree. */
  readonly valued: 'all' | 'none' | 'some';
  readonly ambiguous: boolean;
}

/** An exact long option, or the option(s) a prefix of it stands for where the real parser allows that. */
function resolveLongName(table: OptionTable, written: string): LongName {
  const exact = (name: string): LongName => ({ name, keys: table.aliases[name] ?? [name], valued: table.valued.has(name) ? 'all' : 'none', ambiguous: false });
  const known = Object.hasOwn(table.aliases, written) || table.valued.has(written);
  const abbreviations = table.abbreviations;
  if (known || !abbreviations || written.length <= 2) return exact(written);
  const names = abbreviations.names;
  if (names.includes(written)) return exact(written); // an exact name wins over longer ones
  const candidates = names.filter((name) => name.startsWith(written));
  if (candidates.length === 0) return exact(written);
  if (candidates.length === 1 && abbreviations.complete) return exact(candidates[0]!);
  const keys = [...new Set(candidates.flatMap((name) => table.aliases[name] ?? [name]))];
  const valuedCount = candidates.filter((name) => table.valued.has(name)).length;
  const valued = valuedCount === 0 ? 'none' : valuedCount === candidates.length ? 'all' : 'some';
  return { name: written, keys, valued, ambiguous: true };
}


function shortCluster(table: OptionTable, word: string, next: string | undefined, out: OptionUse[]): boolean {
  const known = table.aliases[word] ?? (table.valued.has(word) ? [word] : undefined);
  if (known && word.length > 2) {
    // A single-dash long option the table knows as a whole (`-name`-style).
    const takesValue = table.valued.has(word) && next !== undefined;
    out.push({ keys: known, spelling: word, value: takesValue ? next : undefined, whole: false });
    return takesValue;
  }
  let allLettersKnown = true;
  for (let at = 1; at < word.length; at++) {
    const spelling = `-${word[at]}`;
    const keys = table.aliases[spelling];
    allLettersKnown &&= keys !== undefined || table.valued.has(spelling);
    if (table.valued.has(spelling)) {
      const attached = word.slice(at + 1);
      const value = attached !== '' ? attached : next;
      out.push({ keys: keys ?? [spelling], spelling, value, whole: false });
      return attached === '' && next !== undefined;
    }
    out.push({ keys: keys ?? [spelling], spelling, value: undefined, whole: false });
  }
  if (word.length > 2 && !allLettersKnown) out.push({ keys: [word], spelling: word, value: undefined, whole: true });
  return false;
}
