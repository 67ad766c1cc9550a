/**
 * Options of the programs that run a project's own code (make, npm/pnpm/yarn scripts, npx and
 * vitest, cargo, go, pytest and `python -m pytest`) with which the line, not the project, chooses
 * what runs, which code is loaded or which files are opened: `make test --eval='x: ; cmd'` or
 * `SHELL=cmd`, `npm test --script-shell=cmd` / `-- x.log` (node --test runs it), `cargo test --config
 * 'target.….runner="cmd"'`, `go test -exec cmd`, `pytest --doctest-glob='*.log'`. A policy that
 * allows `make test` trusts the project's files, not these: each one makes the line unresolvable
 * (asked, never allowed). Every check is an allowlist (project-runners/: an option or word not
 * known to be inert is refused, named in the reason). Checked with the real programs where they run
 * here (GNU make, npm, node --test, vitest, pytest, cargo; jest and mocha installed for the check:
 * the test files under test/shell/project-runners-*.test.ts and red-team-programs.test.ts say which
 * lines); go, pnpm and yarn from their documentation.
 */
import type { Word } from './words.js';
import { cargo } from './project-runners/cargo.js';
import { go } from './project-runners/go.js';
import { make } from './project-runners/make.js';
import { npm, npx, pnpmYarn } from './project-runners/node-packages.js';
import type { Check } from './project-runners/options.js';
import { pytestHazard } from './project-runners/pytest.js';
import { python } from './project-runners/python.js';
import { scriptWords } from './project-runners/test-runners.js';
import { vitestWords } from './project-runners/vitest-words.js';

const CHECKS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ['make', make], ['gmake', make],
  ['npm', npm], ['npx', npx], ['pnpm', pnpmYarn('pnpm')], ['yarn', pnpmYarn('yarn')], ['vitest', vitestWords], ['jest', scriptWords], ['mocha', scriptWords],
  ['cargo', cargo], ['go', go], ['pytest', pytestHazard], ['py.test', pytestHazard],
]);

/** python, python3, python3.12 … (`python -m pytest`: project-runners/python.ts). */
const PYTHON = /^python[0-9.]*$/;

/**
 * Interpreters and build tools that run a project's scripts or build files without options checked
 * here: only their environment is a project runner's (runner-environment.ts), since a project's
 * code may read any variable (`X=id node scripts/build.js`).
 */
const RUNS_PROJECT_CODE: ReadonlySet<string> = new Set([
  'node', 'nodejs', 'deno', 'bun', 'bunx', 'ruby', 'perl', 'php', 'gradle', 'gradlew', 'mvn', 'mvnw', 'tox', 'nox', 'rake', 'bundle',
  'poetry', 'uv', 'uvx', 'pipenv', 'hatch', 'pdm', 'just', 'dotnet', 'sbt', 'mix', 'swift', 'cmake', 'ctest', 'ninja', 'meson', 'bazel', 'ant',
]);

/** Tools that run a command in the project's Python environment: `uv run pytest` is pytest. */
const ENVIRONMENT_RUNNERS: ReadonlySet<string> = new Set(['uv', 'poetry', 'pipenv', 'pdm']);

function checkOf(program: string): Check | undefined {
  return CHECKS.get(program) ?? (PYTHON.test(program) ? python : ENVIRONMENT_RUNNERS.has(program) ? environmentRunner(program) : undefined);
}

/**
 * `uv|poetry|pipenv|pdm [options] run [options] COMMAND ARGS…`: COMMAND gets its own check when it
 * is a runner checked here; the tool's own options around `run` are not modelled then (`uv run
 * --with PKG` installs PKG, `--python` picks an interpreter, `--directory` moves the project).
 */
function environmentRunner(program: string): Check {
  return (args) => {
    const run = args.indexOf('run');
    if (run === -1) return undefined;
    const at = args.findIndex((word, index) => index > run && !word.startsWith('-'));
    if (at === -1) return undefined;
    const option = args.slice(0, at).find((word) => word !== 'run');
    if (option !== undefined) {
      // An option's value may hide where the command starts (`uv run --with evil pytest`).
      const runsRunner = args.slice(at).some((word) => checkOf(programName(word)) !== undefined);
      return runsRunner ? `${program} ${option}: an option the analysis does not know (it may install, pick or move what runs)` : undefined;
    }
    const check = checkOf(programName(args[at]!));
    return check ? check(args.slice(at + 1)) : undefined;
  };
}

const programName = (word: string) => word.slice(word.lastIndexOf('/') + 1);

/** Programs that run a project's own code (its scripts, makefile, tests, build scripts). */
export function isProjectRunner(program: string): boolean {
  return checkOf(program) !== undefined || RUNS_PROJECT_CODE.has(program);
}

/**
 * Why `program` with these arguments runs what the line (not the project) chose; undefined when it
 * does not. Variables set for it are judged with the whole line's (runner-environment.ts): make takes
 * every variable of its environment as a make variable (`PY ?= python3` then `$(PY) -m pytest`), and a
 * project's scripts may read any.
 */
export function projectRunnerHazard(program: string, argv: readonly Word[]): string | undefined {
  const check = checkOf(program);
  if (!check) return undefined;
  // bash expands `*.log` to the project's file names, which may be options: with a file named
  // `--doctest-glob=x.log` (a *.log write), `pytest *.log` ran the doctest in x.log.
  const optionGlob = argv.slice(1).find((word) => word.glob && /^[*?[]/.test(word.text));
  if (optionGlob) return `${program} ${optionGlob.text}: a glob that may expand to options (a file named --x=…)`;
  return check(argv.slice(1).map((word) => word.text));
}
