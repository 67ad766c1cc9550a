/**
 * The one allowlist of environment variables known to leave what a program runs or loads unchanged.
 * Used by terminal/create's env check (broker/enforced-calls.ts) and by the check on variables set
 * in a line that runs a project runner (runner-environment.ts): any other name may decide what runs
 * (`RUSTC_WRAPPER=x cargo test` starts x, so do GOFLAGS=-toolexec, PYTEST_ADDOPTS=-p, CC, MAKEFLAGS,
 * and a project's own `"test": "$X vitest"`), and no list of hazards is complete.
 */

/**
 * Names that only flag or size output, whatever their value: tools read them as a boolean, a colour
 * level or a number (`FORCE_COLOR=anything` is at most a colour depth). claude-code-acp sends CLAUDECODE=1.
 */
const FLAG_VARIABLES: ReadonlySet<string> = new Set(['CLAUDECODE', 'CI', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLUMNS', 'LINES']);

/** A locale name: no `/`, so libc, Python and ICU look it up among the system's locales only (`LANG=/x` would load a file). */
const LOCALE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.@-]*$/;

/**
 * Names whose value selects among system data, inert only with a value that cannot name a file of the
 * line's choosing: a locale, a terminfo entry (ncurses refuses names with `/` anyway), a zone under the
 * system's zoneinfo (no leading `/` or `:`, no `..`: `TZ=/x` or `TZ=:x` would read x).
 */
const VALUED_VARIABLES: ReadonlyMap<string, RegExp> = new Map([
  ['TERM', /^[A-Za-z0-9][A-Za-z0-9._+-]*$/],
  ['TZ', /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/],
  ...['LANG', 'LC_ALL', 'LC_CTYPE', 'LC_COLLATE', 'LC_MESSAGES', 'LC_NUMERIC', 'LC_TIME', 'LC_MONETARY'].map((name) => [name, LOCALE_NAME] as const),
]);

/** Every name on the allowlist, for messages. */
export const INERT_VARIABLE_NAMES: readonly string[] = [...FLAG_VARIABLES, ...VALUED_VARIABLES.keys()];

/**
 * True when setting `name` to `value` leaves what runs unchanged. `value` undefined: known only at run
 * time (`read X`, `X=$(cmd)`), which only the flag variables accept.
 */
export function isInertVariable(name: string, value: string | undefined): boolean {
  if (FLAG_VARIABLES.has(name)) return true;
  const grammar = VALUED_VARIABLES.get(name);
  return grammar !== undefined && value !== undefined && grammar.test(value);
}
