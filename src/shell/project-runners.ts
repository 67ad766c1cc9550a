/**
 * Options of the programs that run a project's own code (make, npm/pnpm/yarn scripts, npx and
 * vitest, cargo, go, pytest) with which the line, not the project, chooses what runs, which code is
 * loaded or which files are opened: `make test --eval='x: ; cmd'` or `SHELL=cmd`, `npm test
 * --script-shell=cmd` / `--node-options=--require=./x.log`, `cargo test --config
 * 'target.….runner="cmd"'`, `go test -exec cmd`, `pytest @.env` (arguments read from a file, shown
 * in its errors). A policy that allows `make test` trusts the project's files, not these: each one
 * makes the line unresolvable (asked, never allowed). npm, npx, pnpm, yarn and the words a script
 * receives are allowlists (project-runners/node-packages.ts, test-runners.ts, vitest-words.ts).
 * Checked with the real programs where they run here (GNU make, npm, vitest, pytest, cargo:
 * test/shell/red-team-programs.test.ts says which lines; node --test, jest and mocha:
 * test/shell/project-runners-node.test.ts); go, pnpm and yarn from their documentation.
 */
import type { Word } from './words.js';
import { cargo } from './project-runners/cargo.js';
import { go } from './project-runners/go.js';
import { make } from './project-runners/make.js';
import { npm, npx, pnpmYarn } from './project-runners/node-packages.js';
import type { Check } from './project-runners/options.js';
import { pytestHazard } from './project-runners/pytest.js';
import { scriptWords } from './project-runners/test-runners.js';
import { vitestWords } from './project-runners/vitest-words.js';

const CHECKS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ['make', make], ['gmake', make],
  ['npm', npm], ['npx', npx], ['pnpm', pnpmYarn('pnpm')], ['yarn', pnpmYarn('yarn')], ['vitest', vitestWords], ['jest', scriptWords], ['mocha', scriptWords],
  ['cargo', cargo], ['go', go], ['pytest', pytestHazard], ['py.test', pytestHazard],
]);

/** Programs that run a project's own code (its scripts, makefile, tests, build scripts). */
export function isProjectRunner(program: string): boolean {
  return CHECKS.has(program);
}

/**
 * Why `program` with these arguments runs what the line (not the project) chose; undefined when it
 * does not. Variables set for it are judged with the whole line's (runner-environment.ts): make takes
 * every variable of its environment as a make variable (`PY ?= python3` then `$(PY) -m pytest`), and a
 * project's scripts may read any.
 */
export function projectRunnerHazard(program: string, argv: readonly Word[]): string | undefined {
  const check = CHECKS.get(program);
  return check ? check(argv.slice(1).map((word) => word.text)) : undefined;
}
