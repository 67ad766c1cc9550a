/**
 * Variables a line sets for a project runner (src/shell/runner-environment.ts). Each `reaches` line
 * is run under real bash with stand-in runners (npm, make, cargo … as scripts that save their
 * environment): bash must really pass X (or the function vitest) to the runner, and the analysis
 * must make the line unresolvable, so neither bundled policy allows it. The `inert` lines set only
 * names of the shared allowlist (src/shell/inert-variables.ts) and stay allowed under default.yaml.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze, sharedAnalyzer } from './helpers.js';
import { bundledPolicy, policyBench, type PolicyBench } from './policy-eval.js';

const RUNNERS = ['npm', 'npx', 'pnpm', 'yarn', 'make', 'cargo', 'go', 'pytest', 'vitest', 'jest', 'mocha'];

/** Lines under which bash passes X=id (or a function vitest) to the runner. `inherited`: X is already exported. */
const reaches: { line: string; inherited?: boolean; stdin?: string }[] = [
  { line: 'X=id npm test' },
  { line: 'env X=id npm test' },
  { line: 'nice env X=id npm test' },
  { line: 'timeout 5 env X=id npm test' },
  { line: 'X=id timeout 5 npm test' },
  { line: 'X=id command npm test' },
  { line: 'export X=id; npm test' },
  { line: 'X=id; export X; npm test' },
  { line: 'declare -x X=id && npm test' },
  { line: 'declare -gx X=id; npm test' },
  { line: 'typeset -x X=id; npm test' },
  { line: 'f() { local -x X=id; npm test; }; f' },
  { line: 'set -a; X=id; npm test' },
  { line: 'set -o allexport; X=id; npm test' },
  { line: 'set -ek; npm test X=id' },
  { line: 'set -o keyword; npm test X=id' },
  { line: 'shopt -so allexport; X=id; npm test' },
  { line: "X=id bash -c 'npm test'" },
  { line: "bash -a -c 'X=id; npm test'" },
  { line: "bash -k -c 'npm test X=id'" },
  { line: "bash -o allexport -c 'X=id; npm test'" },
  { line: 'V=X; export "$V"=id; npm test' },
  { line: 'printf -v X id; export X; npm test' },
  { line: 'read X; export X; npm test', stdin: 'id\n' },
  { line: 'for X in id; do export X; npm test; done' },
  { line: 'echo ${X:=id} >/dev/null; export X; npm test' },
  { line: 'npm test; export X=id; npm test' },
  { line: 'X=id xargs npm test </dev/null' },
  { line: 'X=id; npm test', inherited: true },
  { line: 'X=id; npx vitest run', inherited: true },
  { line: 'vitest() { id; }; export -f vitest; npm test' },
  { line: 'set -a; vitest() { id; }; npm test' },
  ...['X=id make test', 'X=id npx vitest run', 'X=id pnpm test', 'X=id yarn test', 'X=id cargo test', 'X=id go test ./...'].map((line) => ({ line })),
  ...['X=id pytest -q', 'X=id vitest run', 'X=id jest', 'X=id mocha', 'CI=1 X=id npm test', 'export X=id; make test'].map((line) => ({ line })),
];

/** Set only allowlisted names, with plain values: decided as without them. */
const inert = [
  'npm test', 'CI=1 npm test', 'CI=true npm test', 'NO_COLOR=1 pytest', 'env CI=1 npm test', 'CI=1 make test', 'FORCE_COLOR=0 npx vitest run',
  'COLUMNS=120 npm test', 'TERM=dumb npm test', 'TZ=UTC npm test', 'TZ=Europe/Paris cargo test', 'LANG=C.UTF-8 cargo test', 'LC_ALL=C pytest -q',
  'CLAUDECODE=1 go test ./...', "CI='true' npm test",
];

/** Allowlisted names with a value that can name a file or carry shell code (a makefile pastes `$(CI)` into its recipes). */
const badValues = ["CI='x;id' make test", 'CI="$(id)" npm test', 'TERM=../x npm test', 'TZ=/etc/passwd npm test', 'TZ=:x npm test', 'TZ=../../x npm test', 'LANG=/tmp/x cargo test', 'LC_ALL=x/y pytest'];

const dir = mkdtempSync(join(tmpdir(), 'runner-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let stubs: string | undefined;

/** Stand-in runners that save the environment they were started with to $SEEN/<pid>. */
function stubRunners(): string {
  if (stubs !== undefined) return stubs;
  const bin = (stubs = join(dir, 'bin'));
  mkdirSync(bin);
  for (const runner of RUNNERS) {
    const path = join(bin, runner);
    // The environment as exec'd (dash drops BASH_FUNC_…%% names from its own `env`).
    writeFileSync(path, '#!/bin/sh\ntr \'\\0\' \'\\n\' < /proc/$$/environ > "$SEEN/$$"\n');
    chmodSync(path, 0o755);
  }
  return bin;
}

/** What the runners saw when bash ran `line`: one environment listing per runner started. */
function runUnderBash(line: string, inherited: boolean, stdin: string | undefined): string[] {
  const seen = mkdtempSync(join(dir, 'seen-'));
  const env: Record<string, string> = { PATH: `${stubRunners()}:/usr/bin:/bin`, HOME: dir, SEEN: seen, ...(inherited ? { X: 'orig' } : {}) };
  const run = spawnSync('bash', ['-c', line], { cwd: dir, env, input: stdin ?? '', encoding: 'utf8', timeout: 30_000 });
  expect(run.error).toBeUndefined();
  return readdirSync(seen).map((file) => readFileSync(join(seen, file), 'utf8'));
}

describe('variables set for a project runner', () => {
  let bench: PolicyBench | undefined;
  const open = async () => (bench ??= policyBench(await sharedAnalyzer()));
  afterAll(() => bench?.close());

  it.each(reaches)('real bash passes X to the runner, and the analysis cannot resolve it: $line', async ({ line, inherited, stdin }) => {
    const environments = runUnderBash(line, inherited === true, stdin);
    expect(environments.some((environment) => /^X=id$/m.test(environment) || /^BASH_FUNC_vitest%%=/m.test(environment))).toBe(true);
    const { unresolvable } = await analyze(line);
    expect(unresolvable.length).toBeGreaterThan(0);
  });

  it('real npm runs what X names when the script says $X, under the line the analysis now refuses', async () => {
    if (spawnSync('sh', ['-c', 'command -v npm']).status !== 0) return;
    const project = mkdtempSync(join(dir, 'project-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { test: '$X ran-test' } }));
    writeFileSync(join(project, 'mark.sh'), '#!/bin/sh\ntouch "$(dirname "$0")/ran"\n');
    chmodSync(join(project, 'mark.sh'), 0o755);
    const line = `export X=${join(project, 'mark.sh')}; npm test`;
    spawnSync('bash', ['-c', line], { cwd: project, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: project }, encoding: 'utf8', timeout: 60_000 });
    expect(existsSync(join(project, 'ran'))).toBe(true);
    expect((await analyze(line)).unresolvable).toEqual([expect.stringMatching(/^npm runs in a line that sets X\b/)]);
  });

  it('the reason names the variable or the exporting option', async () => {
    expect((await analyze('X=id npm test')).unresolvable).toEqual([expect.stringMatching(/^npm runs in a line that sets X, not a known inert variable/)]);
    expect((await analyze('export X=id; cargo test')).unresolvable).toEqual([expect.stringMatching(/^cargo runs in a line that sets X\b/)]);
    expect((await analyze('vitest() { id; }; export -f vitest; npm test')).unresolvable).toContainEqual(expect.stringMatching(/sets vitest\b/));
    expect((await analyze("CI='x;id' make test")).unresolvable).toEqual([expect.stringMatching(/^make runs in a line that sets CI to a value that may name a file or carry shell code/)]);
    expect((await analyze('for CI in 1; do npm test; done')).unresolvable).toEqual([expect.stringMatching(/sets CI to a value .* known only at run time/)]);
    expect((await analyze('select X in a; do npm test; done')).unresolvable).toContainEqual(expect.stringMatching(/sets REPLY\b/));
    expect((await analyze('set -a; npm test')).unresolvable).toEqual([expect.stringMatching(/^npm runs in a line where set -a: -a exports/)]);
    expect((await analyze('shopt -s -o keyword; npm test')).unresolvable).toEqual([expect.stringMatching(/keyword exports/)]);
    expect((await analyze('set $OPTS; npm test')).unresolvable).toContainEqual(expect.stringMatching(/known only at run time/));
  });

  it('other commands may set what they like, and options that export nothing are fine', async () => {
    for (const line of ['X=id echo hi', 'export X=1; ls', 'set -euo pipefail; npm test', 'set +a; npm test', 'set -- -a; npm test', 'cd src && npm test', 'readonly -p; npm test']) {
      expect((await analyze(line)).unresolvable, line).toEqual([]);
    }
  });

  for (const name of ['default', 'ci-strict'] as const) {
    it(`none of these lines is allowed under ${name}.yaml`, async () => {
      const b = await open();
      const allowed = [...reaches.map(({ line }) => line), ...badValues].filter((line) => b.decide(bundledPolicy(name), line).decision === 'allow');
      expect(allowed).toEqual([]);
    });
  }

  it('allowlisted names with plain values stay allowed under default.yaml', async () => {
    const b = await open();
    const notAllowed = inert.map((line) => ({ line, ...b.decide(bundledPolicy('default'), line) })).filter((r) => r.decision !== 'allow');
    expect(notAllowed).toEqual([]);
  });
});
