/** Reading a runner's own words: long options, getopt_long / nopt prefixes, the words before `--`. */

/** Why a runner with these arguments runs what the line (not the project) chose; undefined when it does not. */
export type Check = (args: readonly string[]) => string | undefined;

/** `--name=value` / `--name` → name (no dashes); undefined for a word that is not a long option. */
export function longName(word: string): string | undefined {
  if (!word.startsWith('--') || word === '--') return undefined;
  const equals = word.indexOf('=');
  return word.slice(2, equals === -1 ? undefined : equals);
}

/** getopt_long / nopt take any unique prefix: a name that may abbreviate one of `names` counts as it. */
export function abbreviates(name: string, names: readonly string[]): string | undefined {
  return name.length === 0 ? undefined : names.find((full) => full.startsWith(name));
}

/** The words before a `--` that ends the program's own options. */
export function ownWords(args: readonly string[]): readonly string[] {
  const end = args.indexOf('--');
  return end === -1 ? args : args.slice(0, end);
}
