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
}

export interface CommandShape {
  /** Non-option words after the program, in order. */
  readonly positionals: readonly string[];
  readonly options: readonly OptionUse[];
}

const EMPTY_TABLE: OptionTable = { aliases: {}, valued: new Set() };

/** `args` are the words after the program word. */
export function shapeOf(program: string, args: readonly string[]): CommandShape {
  const spec = programSpec(program);
  let table: OptionTable = spec;
  let awaitingSubcommand = !!spec.subcommands;
  const positionals: string[] = [];
  const options: OptionUse[] = [];
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (optionsEnded || !isOption(word)) {
      positionals.push(word);
      if (awaitingSubcommand) {
        table = spec.subcommands && Object.hasOwn(spec.subcommands, word) ? spec.subcommands[word]! : EMPTY_TABLE;
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
    const consumed = word.startsWith('--') ? longOption(table, word, next, options) : shortCluster(table, word, next, options);
    if (consumed) i++;
  }
  return { positionals, options };
}

function isOption(word: string): boolean {
  return word.length > 1 && word.startsWith('-');
}

/** Returns true when the next word was consumed as the value. */
function longOption(table: OptionTable, word: string, next: string | undefined, out: OptionUse[]): boolean {
  const equals = word.indexOf('=');
  const name = equals === -1 ? word : word.slice(0, equals);
  const keys = table.aliases[name] ?? [name];
  if (equals !== -1) {
    out.push({ keys, spelling: name, value: word.slice(equals + 1), whole: false });
    return false;
  }
  const takesValue = table.valued.has(name) && next !== undefined;
  out.push({ keys, spelling: name, value: takesValue ? next : undefined, whole: false });
  return takesValue;
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
