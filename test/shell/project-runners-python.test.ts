/**
 * `python -m pytest` (and `uv|poetry|pipenv|pdm run pytest`) is pytest: a policy that allows it gets
 * pytest's allowlist (and python's own options before `-m` only when they load and write nothing; the
 * environment tool's own options not at all: `uv run --with PKG` installs PKG), and a line that runs python, node or
 * a build tool with a variable set gets a project runner's environment check. Verified with real
 * CPython 3 and pytest 9.0.3 in a throwaway directory: `python3 -m pytest --doctest-glob='*.log'
 * x.log` ran the doctest in x.log (a file created); `python3 -W error::this.W -c pass` imported
 * `this` (printed the Zen). The others are the same options in other spellings.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyText } from '../../src/policy/load.js';
import type { PolicySet } from '../../src/policy/types.js';
import { sharedAnalyzer } from './helpers.js';
import { policyBench, type PolicyBench } from './policy-eval.js';

/** A user policy that trusts the project's tests and scripts, as a Python or Node project's might. */
function userPolicy(): PolicySet {
  const commands = ['python -m pytest', 'python3 -m pytest', 'python3.12 -m pytest', 'python3 -Bu -m pytest', 'python3 -X utf8 -m pytest', 'python3 -W error::this.W -m pytest',
    'python3 -X pycache_prefix=/tmp/x -m pytest', 'python3 -mpytest', 'python3 -q -m pytest', 'python3 scripts/build.py', 'node scripts/build.js', 'uv run pytest', 'poetry run pytest', 'pdm run pytest', 'uv run python -m pytest', './gradlew test'];
  const text = ['version: 1', 'default: ask', 'rules:', '  - id: project', '    decision: allow', '    reason: the project\'s own tests and scripts',
    `    match: { kind: execute, command: ${JSON.stringify(commands)} }`, ''].join('\n');
  const loaded = loadPolicyText(text, 'user.yaml', 'user');
  if (!loaded.policy) throw new Error(JSON.stringify(loaded.diagnostics));
  return { files: [loaded.policy] };
}

const escapes: Readonly<Record<string, readonly string[]>> = {
  'python -m pytest is checked as pytest': [
    `printf '>>> import os; os.system("id")\\n0\\n' > x.log && python3 -m pytest --doctest-glob='*.log' x.log`,
    'python3 -m pytest -p x', 'python3 -mpytest -px', 'python -m pytest -- @.env', 'python3.12 -m pytest ../outside', 'python3 -Bu -m pytest --pdb',
  ],
  'python options before -m that load or write': [
    'python3 -W error::this.W -m pytest', 'python3 -Werror::this.W -m pytest', 'python3 -X pycache_prefix=/tmp/x -m pytest', 'python3 -q -Z -m pytest',
  ],
  'uv, poetry and pdm run pytest as pytest': [
    "uv run pytest --doctest-glob='*.log' x.log", 'poetry run pytest -p x', 'pdm run pytest -- @.env', 'uv run python -m pytest -p x',
    'uv run ./.venv/bin/pytest -p x', 'uv run --with evil pytest', 'uv --offline run pytest',
  ],
  'variables set for interpreters and build tools': [
    'X=id python3 -m pytest', 'env X=id python3 scripts/build.py', 'X=id node scripts/build.js', 'export X=id; uv run pytest', 'X=id ./gradlew test',
  ],
};

const everyday = [
  'python -m pytest', 'python3 -m pytest -q', 'python3 -m pytest -x tests/test_a.py', 'python3.12 -m pytest -k parse', 'python3 -Bu -m pytest',
  'python3 -X utf8 -m pytest', 'python3 -mpytest -q', 'CI=1 python3 -m pytest', 'python3 scripts/build.py', 'node scripts/build.js', 'NO_COLOR=1 node scripts/build.js',
  'uv run pytest -q', 'poetry run pytest -x tests/test_a.py', 'pdm run pytest', 'uv run python -m pytest -k parse',
];

describe('python -m pytest and the environment of interpreters and build tools', () => {
  let bench: PolicyBench | undefined;
  const open = async () => (bench ??= policyBench(await sharedAnalyzer()));
  afterAll(() => bench?.close());

  for (const [group, lines] of Object.entries(escapes)) {
    it(`${group}: never allowed by a policy that allows the plain line`, async () => {
      const b = await open();
      const allowed = lines.filter((line) => b.decide(userPolicy(), line).decision === 'allow');
      expect(allowed).toEqual([]);
    });
  }

  it('the reason names what was refused', async () => {
    const b = await open();
    expect(b.decide(userPolicy(), 'python3 -W error::this.W -m pytest').reason).toContain('python -W error::this.W');
    expect(b.decide(userPolicy(), "python3 -m pytest --doctest-glob='*.log' x.log").reason).toContain('--doctest-glob');
    expect(b.decide(userPolicy(), 'X=id node scripts/build.js').reason).toContain('node runs in a line that sets X');
  });

  it('everyday lines stay allowed', async () => {
    const b = await open();
    const notAllowed = everyday.map((line) => ({ line, ...b.decide(userPolicy(), line) })).filter((r) => r.decision !== 'allow');
    expect(notAllowed).toEqual([]);
  });
});
