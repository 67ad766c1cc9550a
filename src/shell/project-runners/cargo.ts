/**
 * cargo, an allowlist: the subcommands build, check, test, bench, doc, run, clippy, fmt, nextest
 * run|list and version, each with the options of cargo-options.ts; words after `--` as the program
 * they go to reads them (libtest, rustc's lint levels for clippy, rustfmt). Anything else — an
 * option, a subcommand, a `+toolchain`, arguments for the project's own binary — is not modelled.
 */
import {
  ALIASES, CLIPPY_TRAILING, CLIPPY_TRAILING_SHORT, COMPILE_SHORT, GLOBAL, GLOBAL_SHORT, LIBTEST, LIBTEST_SHORT, NEXTEST, NEXTEST_SHORT,
  NEXTEST_TRAILING, RUSTFMT_TRAILING, RUSTFMT_TRAILING_SHORT, SUBCOMMAND_OPTIONS, TOP_ONLY, TOP_ONLY_SHORT,
} from './cargo-options.js';
import { FLAG, readOptions, table, VALUE, type Arity, type OptionTable } from './exact-options.js';
import type { Check } from './options.js';

const CHOSEN = 'runs or writes what the line chose';
const HAZARDS: Record<string, string> = {
  '--config': CHOSEN, '--manifest-path': CHOSEN, '--target-dir': CHOSEN, '--artifact-dir': CHOSEN, '--out-dir': CHOSEN, '--lockfile-path': CHOSEN,
  '-Z': 'sets unstable flags (config includes, other tools)', '-C': 'runs another directory\'s project',
};

const TOP = table({ ...GLOBAL, ...TOP_ONLY }, { ...GLOBAL_SHORT, ...TOP_ONLY_SHORT }, HAZARDS);
const FMT_SHORT: Record<string, Arity> = { q: FLAG, v: FLAG, h: FLAG, p: VALUE };
const NEXTEST_COMMANDS = new Set(['run', 'r', 'list', 'l']);

export const cargo: Check = (args) => {
  if (args[0]?.startsWith('+')) return `cargo ${args[0]}: a toolchain the line chose`;
  const at = subcommandIndex(args);
  const top = readOptions('cargo', args.slice(0, at), TOP);
  if (typeof top === 'string') return top;
  const name = args[at];
  if (name === undefined) return undefined;
  const rest = args.slice(at + 1);
  const subcommand = ALIASES[name] ?? name;
  if (subcommand === 'version') return rest.length === 0 ? undefined : 'cargo version: arguments the analysis does not model';
  if (subcommand === 'nextest') return nextest(rest);
  const options = SUBCOMMAND_OPTIONS[subcommand];
  if (!options) return `cargo ${name}: a subcommand the analysis does not model`;
  const reading = readOptions('cargo', rest, table(options, subcommand === 'fmt' ? FMT_SHORT : COMPILE_SHORT, HAZARDS));
  if (typeof reading === 'string') return reading;
  const takesFilter = subcommand === 'test' || subcommand === 'bench';
  const positional = reading.positionals[0];
  if (positional !== undefined && !takesFilter) return `cargo ${subcommand} ${positional}: ${subcommand === 'run' ? "arguments to the project's program are not modelled" : 'an argument the analysis does not model'}`;
  return trailing(subcommand, reading.trailing ?? []);
};

/** Where the subcommand is: after cargo's own options (`cargo -q --color never test`). */
function subcommandIndex(args: readonly string[]): number {
  let index = 0;
  while (index < args.length && args[index]!.startsWith('-') && args[index] !== '--') index += args[index] === '--color' || args[index] === '--explain' ? 2 : 1;
  return index;
}

const LIBTEST_TABLE = table(LIBTEST, LIBTEST_SHORT, { '--logfile': 'writes a file the line chose', '-Z': 'sets unstable options' });
const TRAILING: Readonly<Record<string, OptionTable>> = {
  test: LIBTEST_TABLE,
  bench: LIBTEST_TABLE,
  clippy: table(CLIPPY_TRAILING, CLIPPY_TRAILING_SHORT),
  fmt: table(RUSTFMT_TRAILING, RUSTFMT_TRAILING_SHORT, { '--config-path': 'reads a config the line chose' }),
};

/** The words after `cargo SUBCOMMAND --`: libtest filters are inert, other positionals (files for rustc or rustfmt) are not. */
function trailing(subcommand: string, words: readonly string[]): string | undefined {
  if (words.length === 0) return undefined;
  const options = TRAILING[subcommand];
  if (!options) return `cargo ${subcommand} -- ${words[0]}: ${subcommand === 'run' ? "arguments to the project's program are not modelled" : 'arguments the analysis does not model'}`;
  const program = `cargo ${subcommand} --`;
  const reading = readOptions(program, words, options);
  if (typeof reading === 'string') return reading;
  // libtest reads every other word as a test name filter; rustc and rustfmt would read it as a file.
  if (options === LIBTEST_TABLE) return undefined;
  const stray = [...reading.positionals, ...(reading.trailing ?? [])][0];
  return stray === undefined ? undefined : `${program} ${stray}: an argument the analysis does not model`;
}

const NEXTEST_TABLE = table(NEXTEST, NEXTEST_SHORT, HAZARDS);
const NEXTEST_TRAILING_TABLE = table(NEXTEST_TRAILING, {}, {});

/** `cargo nextest run|list [options] [filters] [-- filters]`. */
function nextest(args: readonly string[]): string | undefined {
  const [command, ...rest] = args;
  if (command === undefined || !NEXTEST_COMMANDS.has(command)) return `cargo nextest ${command ?? ''}: a subcommand the analysis does not model`.trimEnd();
  const reading = readOptions('cargo nextest', rest, NEXTEST_TABLE);
  if (typeof reading === 'string') return reading;
  if (!reading.trailing) return undefined;
  const after = readOptions('cargo nextest --', reading.trailing, NEXTEST_TRAILING_TABLE);
  return typeof after === 'string' ? after : undefined;
}
