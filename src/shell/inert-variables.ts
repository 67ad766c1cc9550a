/**
 * The one allowlist of environment variables known to leave what a program runs or loads unchanged,
 * used by terminal/create's env check (broker/enforced-calls.ts). Any other name may decide what runs
 * (`RUSTC_WRAPPER=x cargo test` starts x, so do GOFLAGS=-toolexec, RUSTFLAGS=-Clinker, PYTEST_ADDOPTS=-p,
 * CC, MAKEFLAGS …): no list of hazards is complete, so only these pass.
 */

/**
 * Names that only flag or size output, whatever their value: tools read them as a boolean, a colour
 * level or a number (`FORCE_COLOR=anything` is at most a colour depth). claude-code-acp sends CLAUDECODE=1.
 */
const FLAG_VARIABLES: ReadonlySet<string> = new Set(['CLAUDECODE', 'CI', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLUMNS', 'LINES']);

/** True when setting `name` (to any value) leaves what runs unchanged. */
export function isInertVariable(name: string): boolean {
  return FLAG_VARIABLES.has(name);
}
