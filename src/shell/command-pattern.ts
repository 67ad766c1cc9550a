/**
 * Policy `command` patterns: a word list written like a shell line (`git push --force`,
 * `rm -rf /`, `npm run *`, `'curl'`), matched against one SimpleCommand.
 *
 * - Non-option words must match the command's leading non-option words in order (a prefix):
 *   `git push` matches `git push origin main`. The first word matches the program (basename of
 *   argv[0]) or argv[0] as written. A word `*` matches any one word; `*` inside a word matches any
 *   characters; a quoted `*` is literal.
 * - Options may appear anywhere in the command, in any spelling (see command-shape.ts and
 *   option-specs.ts): `rm -rf` = `rm -fr` = `rm -r -f` = `rm --recursive --force` = `rm -rfv`.
 *   A pattern option with a value (`curl -X POST`) needs that value.
 * - Path-like words compare after normalisation: a pattern word starting with `/` or `~` matches
 *   the command word resolved against the command's cwd (`rm -rf //`, `cd / && rm -rf .`), `~` is
 *   the command's home; other words also match their normalised form (`./src/` = `src`).
 */
import { shapeOf, type CommandShape, type OptionUse } from './command-shape.js';
import { commandFrom, lookThroughStarts } from './look-through.js';
import { basename, normalizeRelative, resolvePath } from './paths.js';
import type { SimpleCommand } from './types.js';

export interface CommandPattern {
  /** The pattern as written. */
  readonly source: string;
  /** Its words after quote removal. */
  readonly words: readonly string[];
  /** @internal matching data */
  readonly compiled: readonly PatternWord[];
}

interface PatternWord {
  readonly text: string;
  /** Matches any one word (an unquoted `*` alone). */
  readonly any: boolean;
  /** Set when the word has an unquoted `*`. */
  readonly glob: RegExp | undefined;
}

export interface CommandMatchOptions {
  /**
   * For allow rules: a pattern program without a slash (`git`) then only matches a command run by
   * name or from a system directory, not `./git` or `tools/git` (which may be anything); an
   * ambiguous long-option prefix (`git push --f`) then counts as no option, and the command does not
   * match at all when such a prefix may or may not take the next word as its value.
   */
  readonly strictProgram?: boolean;
  /**
   * For deny and ask rules: a command of a program not known to treat its arguments as data also
   * matches when a command starting at one of its later words does (`foo --bar rm -rf /` matches
   * `rm -rf /`; see look-through.ts). Never for allow rules.
   */
  readonly lookThrough?: boolean;
}

const SYSTEM_DIRECTORIES = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin', '/opt/homebrew/bin']);

export function parseCommandPattern(text: string): CommandPattern | { error: string } {
  if (typeof text !== 'string') return { error: 'a command pattern must be a string' };
  const tokens = tokenize(text);
  if ('error' in tokens) return tokens;
  if (tokens.length === 0) return { error: 'empty command pattern' };
  if (tokens[0]!.text.startsWith('-')) return { error: `a command pattern must start with a program, not ${tokens[0]!.text}` };
  return { source: text, words: tokens.map((token) => token.text), compiled: tokens };
}

/**
 * The program a pattern can only match by name: its first word when that is literal (no `*`);
 * a command matches the pattern only if its program (basename) or argv[0] equals it. Undefined
 * when the first word is a glob or `*` (may match any program). For indexing rules by program.
 */
export function patternProgram(pattern: CommandPattern): string | undefined {
  const word = pattern.compiled[0];
  return word && !word.any && !word.glob ? word.text : undefined;
}

/**
 * Whether every command `narrow` matches is also matched by `broad`, provably (for the linter's
 * "shadowed rule"): `broad` is a prefix of `narrow`'s words, each word equal to narrow's (neither
 * a glob) or `*`, and neither pattern has an option (options may sit anywhere and take values, so
 * words could line up differently). False whenever that is not certain.
 */
export function patternSubsumes(broad: CommandPattern, narrow: CommandPattern): boolean {
  const wide = broad.compiled;
  const words = narrow.compiled;
  if (wide.length > words.length || [...wide, ...words].some((w) => w.text.startsWith('-'))) return false;
  return wide.every((w, i) => w.any || (!w.glob && !words[i]!.glob && !words[i]!.any && w.text === words[i]!.text));
}

export function commandMatches(pattern: CommandPattern, command: SimpleCommand, options: CommandMatchOptions = {}): boolean {
  return commandMatcher(command)(pattern, options);
}

/**
 * `commandMatches` for one command and many patterns (a policy's rules): the command's words are
 * split into options and positionals once, on the first pattern whose program matches.
 */
export function commandMatcher(command: SimpleCommand): (pattern: CommandPattern, options?: CommandMatchOptions) => boolean {
  let commandShape: CommandShape | undefined;
  let inner: { readonly starts: readonly number[]; readonly matchers: ((pattern: CommandPattern) => boolean)[] } | undefined;
  const direct = (pattern: CommandPattern, strictProgram: boolean): boolean => {
    const programWord = pattern.compiled[0];
    if (!programWord || !matchesProgram(programWord, command, strictProgram)) return false;
    commandShape ??= shapeOf(command.program, argumentsOf(command.argv));
    const { shape: patternShape, positionals: positionalWords } = patternShapeFor(pattern, command.program);
    // For allow rules, an ambiguous long-option prefix is no option, and one that may or may not
    // take a value leaves the positionals unknown.
    if (strictProgram && commandShape.uncertain) return false;
    if (!matchesPositionals(positionalWords, commandShape, command)) return false;
    return matchesOptions(patternShape, commandShape, strictProgram);
  };
  return (pattern, options = {}) => {
    if (direct(pattern, options.strictProgram ?? false)) return true;
    const programWord = pattern.compiled[0];
    if (!options.lookThrough || options.strictProgram || !programWord || programWord.any) return false;
    inner ??= { starts: lookThroughStarts(command), matchers: [] };
    for (let i = 0; i < inner.starts.length; i++) {
      const start = inner.starts[i]!;
      const word = command.argv[start]!;
      if (!matchesText(programWord, word) && !matchesText(programWord, basename(word))) continue;
      const matcher = (inner.matchers[i] ??= lookThroughMatcher(commandFrom(command, start)));
      if (matcher(pattern)) return true;
    }
    return false;
  };
}

/** Matches a looked-through command directly (its own arguments are looked through by the outer loop). */
function lookThroughMatcher(command: SimpleCommand): (pattern: CommandPattern) => boolean {
  const matcher = commandMatcher(command);
  return (pattern) => matcher(pattern, LOOSE);
}

const LOOSE: CommandMatchOptions = { strictProgram: false };

/** argv without argv[0]; a loop because slice() of a frozen array (analyses are frozen) is slow in V8. */
function argumentsOf(argv: readonly string[]): string[] {
  const args: string[] = [];
  for (let i = 1; i < argv.length; i++) args.push(argv[i]!);
  return args;
}

/*
 * A pattern's shape depends only on the program it is read for (option tables differ), and is
 * asked for on every call: remembered per pattern and program.
 */
const patternShapes = new WeakMap<CommandPattern, Map<string, PatternShape>>();
const MAX_PROGRAMS_PER_PATTERN = 64;

interface PatternShape {
  readonly shape: CommandShape;
  readonly positionals: readonly PatternWord[];
}

function patternShapeFor(pattern: CommandPattern, program: string): PatternShape {
  let perProgram = patternShapes.get(pattern);
  if (!perProgram) patternShapes.set(pattern, (perProgram = new Map()));
  let entry = perProgram.get(program);
  if (!entry) {
    const rest = pattern.compiled.slice(1);
    const shape = shapeOf(program, rest.map((word) => word.text));
    entry = { shape, positionals: positionalPatternWords(rest, shape) };
    if (perProgram.size >= MAX_PROGRAMS_PER_PATTERN) perProgram.clear(); // `*` patterns meet any program
    perProgram.set(program, entry);
  }
  return entry;
}

function matchesProgram(word: PatternWord, command: SimpleCommand, strict: boolean): boolean {
  if (word.any) return true;
  const argv0 = command.argv[0] ?? '';
  if (!matchesText(word, command.program) && !matchesText(word, argv0)) return false;
  if (!strict || word.text.includes('/') || !argv0.includes('/')) return true;
  return SYSTEM_DIRECTORIES.has(argv0.slice(0, argv0.lastIndexOf('/')) || '/');
}

/** The pattern words that are positional, keeping their glob information. */
function positionalPatternWords(rest: readonly PatternWord[], shape: CommandShape): PatternWord[] {
  const pool = [...rest];
  return shape.positionals.map((text) => {
    const index = pool.findIndex((word) => word.text === text);
    return index === -1 ? literalWord(text) : pool.splice(index, 1)[0]!;
  });
}

function matchesPositionals(words: readonly PatternWord[], shape: CommandShape, command: SimpleCommand): boolean {
  if (words.length > shape.positionals.length) return false;
  for (let index = 0; index < words.length; index++) if (!matchesPositional(words[index]!, shape.positionals[index]!, command)) return false;
  return true;
}

function matchesPositional(word: PatternWord, actual: string, command: SimpleCommand): boolean {
  if (word.any || matchesText(word, actual) || matchesText(word, normalizeRelative(actual))) return true;
  const anchored = anchoredPattern(word, command.home);
  if (!anchored) return false;
  return matchesText(anchored, resolvePath(command.cwd, actual));
}

/** A pattern word starting with `/` or `~`, normalised (and `~` expanded) for path comparison. */
function anchoredPattern(word: PatternWord, home: string | undefined): PatternWord | undefined {
  let text = word.text;
  if (home !== undefined && (text === '~' || text.startsWith('~/'))) text = home + text.slice(1);
  if (!text.startsWith('/')) return undefined;
  if (!word.glob) return { ...word, text: resolvePath('/', text) };
  return { ...word, text, glob: globRegExp(text.replace(/\/+$/, '') || '/', true) };
}

function matchesOptions(pattern: CommandShape, command: CommandShape, certainOnly: boolean): boolean {
  const uses = certainOnly && command.options.some((use) => use.ambiguous) ? command.options.filter((use) => !use.ambiguous) : command.options;
  return pattern.options.every((wanted) => wanted.whole || hasOption(wanted, uses));
}

function hasOption(wanted: OptionUse, uses: readonly OptionUse[]): boolean {
  if (wanted.spelling.includes('*')) {
    const glob = globRegExp(wanted.spelling, true);
    return uses.some((use) => glob.test(use.spelling));
  }
  // An open prefix (`git config --glob`) may be the wanted option itself (deny side only: allow
  // rules never see ambiguous uses).
  if (wanted.spelling.startsWith('--') && wanted.value === undefined && uses.some((use) => use.openPrefix && wanted.spelling.startsWith(use.spelling))) return true;
  // Every key the wanted option sets is set by some option of the command.
  if (!wanted.keys.every((key) => uses.some((use) => use.keys.includes(key)))) return false;
  if (wanted.value === undefined) return true;
  const value = globRegExp(wanted.value, true);
  return uses.some((use) => wanted.keys.every((key) => use.keys.includes(key)) && use.value !== undefined && value.test(use.value));
}

function matchesText(word: PatternWord, text: string): boolean {
  return word.glob ? word.glob.test(text) : word.text === text;
}

function literalWord(text: string): PatternWord {
  return { text, any: false, glob: undefined };
}

/** `*` matches any characters; with `starIsGlob` false nothing is special. */
function globRegExp(text: string, starIsGlob: boolean, starMask?: readonly boolean[]): RegExp {
  let source = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const isStar = ch === '*' && (starMask ? starMask[i] : starIsGlob);
    source += isStar ? '[\\s\\S]*' : ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Shell-like word splitting with quotes and backslashes; records which `*` are unquoted. */
function tokenize(text: string): PatternWord[] | { error: string } {
  const words: PatternWord[] = [];
  let current: { text: string; stars: boolean[] } | undefined;
  const add = (ch: string, unquotedStar: boolean) => {
    current ??= { text: '', stars: [] };
    current.text += ch;
    current.stars.push(unquotedStar);
  };
  const finish = () => {
    if (!current) return;
    const hasGlob = current.stars.some(Boolean);
    const any = current.text === '*' && current.stars[0] === true;
    words.push({ text: current.text, any, glob: hasGlob && !any ? globRegExp(current.text, false, current.stars) : undefined });
    current = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (/\s/.test(ch)) finish();
    else if (ch === '\\') {
      if (i + 1 >= text.length) return { error: 'command pattern ends with a backslash' };
      add(text[++i]!, false);
    } else if (ch === "'" || ch === '"') {
      const close = text.indexOf(ch, i + 1);
      if (close === -1) return { error: `unterminated ${ch} quote in command pattern` };
      current ??= { text: '', stars: [] };
      for (const quoted of text.slice(i + 1, close)) add(quoted, false);
      i = close;
    } else add(ch, ch === '*');
  }
  finish();
  return words;
}
