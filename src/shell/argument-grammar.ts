/**
 * Splits a command's arguments into options (with their values) and positional words, keeping each
 * word's expansion facts (dynamic, glob, ~) so a file named by a value or a positional can be judged.
 * Unknown options are taken as flags: their next word stays positional, so a file is never hidden
 * as a supposed option value.
 */
import type { Word } from './words.js';

export interface OptionGrammar {
  /** Spellings that take a value: `-o F`, `-oF`, `--output F`, `--output=F`. */
  readonly valued: ReadonlySet<string>;
  /** Spellings whose value may only be attached (`-i.bak`, `--in-place=.bak`); a next word is not theirs. */
  readonly attachedOnly?: ReadonlySet<string>;
  /** Spellings taking two values (`jq --arg NAME VALUE`). */
  readonly twoValues?: ReadonlySet<string>;
  /** Long spellings an abbreviation (`--out`) may stand for, when their value is a file. */
  readonly fileLongOptions?: readonly string[];
  /** `+N` / `+/re` words are options (more, tail), not files. */
  readonly plusWords?: boolean;
}

export interface OptionUse {
  /** The spelling as the grammar knows it (`-o`, `--output`); an abbreviation maps to its long option. */
  readonly name: string;
  readonly value: Word | undefined;
  /** The second value of a two-value option. */
  readonly value2?: Word;
  /** Position of the option word among the arguments (for order-dependent options like `tar -C`). */
  readonly at: number;
}

export interface PositionalUse {
  readonly word: Word;
  readonly at: number;
}

export interface ParsedArguments {
  readonly options: readonly OptionUse[];
  readonly positionals: readonly PositionalUse[];
}

/** `args` are the words after the program. */
export function parseArguments(args: readonly Word[], grammar: OptionGrammar): ParsedArguments {
  const options: OptionUse[] = [];
  const positionals: PositionalUse[] = [];
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const text = word.text;
    if (optionsEnded || word.dynamic || !isOptionWord(text, grammar)) {
      positionals.push({ word, at: i });
      continue;
    }
    if (text === '--') {
      optionsEnded = true;
      continue;
    }
    if (text.startsWith('+')) {
      options.push({ name: text, value: undefined, at: i });
      continue;
    }
    const consumed = text.startsWith('--') ? longOption(word, args, i, grammar, options) : shortCluster(word, args, i, grammar, options);
    i += consumed;
  }
  return { options, positionals };
}

function isOptionWord(text: string, grammar: OptionGrammar): boolean {
  if (text.length > 1 && text.startsWith('-')) return true;
  return !!grammar.plusWords && text.length > 1 && text.startsWith('+');
}

/** Returns how many following words were consumed as values. */
function longOption(word: Word, args: readonly Word[], i: number, grammar: OptionGrammar, out: OptionUse[]): number {
  const equals = word.text.indexOf('=');
  const written = equals === -1 ? word.text : word.text.slice(0, equals);
  const name = canonicalLong(written, grammar);
  if (equals !== -1) {
    out.push({ name, value: part(word, equals + 1), at: i });
    return 0;
  }
  if (grammar.twoValues?.has(name)) {
    out.push({ name, value: args[i + 1], value2: args[i + 2], at: i });
    return 2;
  }
  if (grammar.valued.has(name) && !grammar.attachedOnly?.has(name) && i + 1 < args.length) {
    out.push({ name, value: args[i + 1], at: i });
    return 1;
  }
  out.push({ name, value: undefined, at: i });
  return 0;
}

/**
 * GNU getopt accepts any unique prefix of a long option. An abbreviation of a file-valued option
 * counts as it (even when ambiguous, so the file is seen); others keep their spelling, so their
 * would-be value stays a positional word.
 */
function canonicalLong(written: string, grammar: OptionGrammar): string {
  if (grammar.valued.has(written) || written.length < 3) return written;
  return grammar.fileLongOptions?.find((long) => long.startsWith(written)) ?? written;
}

function shortCluster(word: Word, args: readonly Word[], i: number, grammar: OptionGrammar, out: OptionUse[]): number {
  const text = word.text;
  if (grammar.valued.has(text) && text.length > 2) {
    // A single-dash long option (`-name`, xxd `-cols`).
    const hasNext = i + 1 < args.length;
    out.push({ name: text, value: hasNext ? args[i + 1] : undefined, at: i });
    return hasNext ? 1 : 0;
  }
  for (let at = 1; at < text.length; at++) {
    const name = `-${text[at]}`;
    if (!grammar.valued.has(name)) {
      out.push({ name, value: undefined, at: i });
      continue;
    }
    if (at + 1 < text.length) {
      out.push({ name, value: part(word, at + 1), at: i });
      return 0;
    }
    if (grammar.attachedOnly?.has(name) || i + 1 >= args.length) {
      out.push({ name, value: undefined, at: i });
      return 0;
    }
    out.push({ name, value: args[i + 1], at: i });
    return 1;
  }
  return 0;
}

/** The tail of a word from `start` (an attached option value, `if=F`, `REV:PATH`); keeps its flags. */
export function part(word: Word, start: number): Word {
  const text = word.text.slice(start);
  return { ...word, text, tildeUnresolved: word.tildeUnresolved || text.startsWith('~'), glob: word.glob && /[*?[]/.test(text) };
}

export function hasOption(parsed: ParsedArguments, names: readonly string[]): boolean {
  return parsed.options.some((option) => names.includes(option.name));
}

/** `dir` as seen from `base` (`-C a -C b` is a/b; an absolute dir stands alone). */
export function within(base: Word | undefined, dir: Word): Word {
  if (!base || dir.text.startsWith('/')) return dir;
  return { ...dir, text: `${base.text}/${dir.text}`, dynamic: base.dynamic || dir.dynamic, glob: base.glob || dir.glob, tildeUnresolved: base.tildeUnresolved || dir.tildeUnresolved };
}
