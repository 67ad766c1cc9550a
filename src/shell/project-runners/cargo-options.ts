/**
 * The options cargo 1.95 takes for everyday building and testing (`cargo help build|check|test|bench|
 * doc|run`, `cargo fmt --help`, `cargo clippy --help`, cargo-nextest's documentation) that choose
 * none of what runs, is loaded or written: package and target selection, features, profile, jobs,
 * output format, lockfile strictness. What is not here — `--config`, `-Z`, `--manifest-path`,
 * `--target-dir`, `--target ./spec.json`, `doc --open`, `clippy --fix`, any option added later — is
 * not modelled. clap takes no abbreviations (`--workspac` is an error, checked).
 */
import { checked, FLAG, OPTIONAL, oneOf, VALUE, type Arity } from './exact-options.js';

/** A built-in target triple, never a path: rustc reads `x.json` (or a name with `/`) as a target spec file, which names a linker. */
const targetTriple: Arity = checked((value) =>
  /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(value) && !value.endsWith('.json') ? undefined : 'a target spec file, not a target triple');

const flags = (...names: string[]): Record<string, Arity> => Object.fromEntries(names.map((name) => [name, FLAG]));

/** Options cargo takes before and after any subcommand. */
export const GLOBAL: Record<string, Arity> = {
  ...flags('verbose', 'quiet', 'locked', 'offline', 'frozen', 'help'),
  color: oneOf('auto', 'always', 'never'),
};
export const GLOBAL_SHORT: Record<string, Arity> = { v: FLAG, q: FLAG, h: FLAG };

/** Options only before a subcommand (`cargo -V`, `cargo --list`). */
export const TOP_ONLY: Record<string, Arity> = { ...flags('version', 'list'), explain: VALUE };
export const TOP_ONLY_SHORT: Record<string, Arity> = { V: FLAG };

/** Building any of the project's targets: `cargo build|check|test|bench|doc|run|clippy`. */
const COMPILE: Record<string, Arity> = {
  ...GLOBAL,
  ...flags('workspace', 'all', 'lib', 'bins', 'examples', 'tests', 'benches', 'all-targets', 'all-features', 'no-default-features',
    'release', 'keep-going', 'timings', 'ignore-rust-version', 'future-incompat-report'),
  package: OPTIONAL, exclude: VALUE, bin: OPTIONAL, example: OPTIONAL, test: OPTIONAL, bench: OPTIONAL,
  features: VALUE, profile: VALUE, jobs: VALUE, target: targetTriple,
  'message-format': VALUE,
};
export const COMPILE_SHORT: Record<string, Arity> = { ...GLOBAL_SHORT, p: OPTIONAL, F: VALUE, j: VALUE, r: FLAG };

export const SUBCOMMAND_OPTIONS: Readonly<Record<string, Record<string, Arity>>> = {
  build: COMPILE,
  check: COMPILE,
  test: { ...COMPILE, ...flags('doc', 'no-run', 'no-fail-fast') },
  bench: { ...COMPILE, ...flags('no-run', 'no-fail-fast') },
  doc: { ...COMPILE, ...flags('no-deps', 'document-private-items') },
  run: COMPILE,
  clippy: { ...COMPILE, ...flags('no-deps') },
  fmt: { ...flags('quiet', 'verbose', 'version', 'all', 'check', 'help'), package: VALUE, 'message-format': oneOf('short', 'json', 'human') },
};

/** cargo's own aliases (a project's `[alias]` cannot shadow a built-in command). */
export const ALIASES: Readonly<Record<string, string>> = { b: 'build', c: 'check', t: 'test', d: 'doc', r: 'run' };

/** cargo-nextest `run`/`list`: its own profiles and filtersets come from the project's .config/nextest.toml. */
export const NEXTEST: Record<string, Arity> = {
  ...COMPILE,
  ...flags('no-fail-fast', 'fail-fast', 'no-capture', 'nocapture', 'hide-progress-bar', 'no-tests-fail'),
  'cargo-profile': VALUE, 'test-threads': VALUE, retries: VALUE, 'max-fail': VALUE, 'filterset': VALUE, 'filter-expr': VALUE,
  'run-ignored': oneOf('default', 'ignored-only', 'only', 'all'), 'no-tests': oneOf('fail', 'warn', 'pass'),
  'status-level': VALUE, 'final-status-level': VALUE, 'failure-output': VALUE, 'success-output': VALUE,
};
export const NEXTEST_SHORT: Record<string, Arity> = { ...COMPILE_SHORT, E: VALUE, P: VALUE };

/** libtest after `cargo test|bench --` (getopts: `--x=v` or `--x v`, no abbreviations, checked: `--nocap` is refused). */
export const LIBTEST: Record<string, Arity> = {
  ...flags('include-ignored', 'ignored', 'exclude-should-panic', 'test', 'bench', 'list', 'nocapture', 'no-capture', 'exact', 'quiet',
    'show-output', 'report-time', 'ensure-time', 'shuffle', 'force-run-in-process', 'help'),
  'test-threads': VALUE, skip: VALUE, color: oneOf('auto', 'always', 'never'), format: oneOf('pretty', 'terse', 'json', 'junit'),
  'shuffle-seed': VALUE,
};
export const LIBTEST_SHORT: Record<string, Arity> = { q: FLAG, h: FLAG };

/** nextest after `--`: test name filters and libtest's selection flags. */
export const NEXTEST_TRAILING: Record<string, Arity> = { ...flags('exact', 'ignored', 'include-ignored'), skip: VALUE };

/** clippy-driver after `cargo clippy --` is rustc: only the lint levels (`-C linker=…`, `-L`, `--extern` are rustc too). */
const lint: Arity = checked((value) => (/^[A-Za-z0-9_:-]+$/.test(value) ? undefined : 'not a lint name'));
export const CLIPPY_TRAILING: Record<string, Arity> = { warn: lint, allow: lint, deny: lint, forbid: lint, 'cap-lints': lint };
export const CLIPPY_TRAILING_SHORT: Record<string, Arity> = { W: lint, A: lint, D: lint, F: lint };

/** rustfmt after `cargo fmt --`: no config path, no file names. */
export const RUSTFMT_TRAILING: Record<string, Arity> = {
  ...flags('check', 'verbose', 'quiet', 'files-with-diff'), edition: oneOf('2015', '2018', '2021', '2024'), color: oneOf('auto', 'always', 'never'),
};
export const RUSTFMT_TRAILING_SHORT: Record<string, Arity> = { v: FLAG, q: FLAG, l: FLAG };
