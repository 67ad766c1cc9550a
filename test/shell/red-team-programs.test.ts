/**
 * Program-level red team: lines the bundled policies allowed although the real program, given these
 * options, arguments or environment, runs another program, reads a file a deny rule protects or
 * writes where the analysis did not say. The lines under a `verified:` comment were run under bwrap +
 * strace with the real program (GNU make 4.3, npm 11.19, git 2.39.5, GNU grep 3.8, coreutils wc,
 * pytest 9, vitest 4.1, cargo) and did so; the others are the same option in other spellings, or programs
 * not installed here (go, rg, pnpm, yarn) taken from their documentation. None may be
 * allowed under default.yaml or ci-strict.yaml; the `everyday` lines of the same programs stay
 * allowed under default.yaml.
 */
import { describe, expect, it } from 'vitest';
import { treeReadFacts } from '../../src/facts/tree-facts.js';
import { sharedAnalyzer } from './helpers.js';
import { redTeamCases } from './red-team.js';

const escapes: Readonly<Record<string, readonly string[]>> = {
  // verified: make ran `id` (execve /usr/bin/id)
  'make runs code the line chose': [
    "make test pwn --eval='pwn: ; id'", 'make test --ev=x', 'make test -E x',
    "echo 'test: ; id' > x.log && make test -f x.log", 'make test -fx.log', 'make test -sfx.log', 'make test --mak=x.log',
    'make test SHELL=/usr/bin/id', 'make test --load-plugin=x', 'make --unknown-option test', 'make test -- CC=id', 'make test -C /tmp', 'make test -I /tmp', 'CC=id make test', 'MAKEFLAGS=-fx.log make test',
    // verified with `PY ?= echo` and a recipe `$(PY) running-tests`: make ran id
    'PY=id make test', 'env PY=id make test', 'timeout 60 env PY=id make test',
  ],
  // verified: npm ran /usr/bin/id -c …; node loaded ./x.log and ran id
  'npm/npx/pnpm/yarn run code the line chose': [
    'npm test --script-shell=/usr/bin/id', 'npm test --script-sh=/usr/bin/id', 'npm run lint --script-shell id',
    "echo 'require(\"child_process\").execSync(\"id\")' > x.log && npm test --node-options=--require=./x.log",
    'npm test --node-o=--require=./x.log', 'npm --prefix /tmp test', 'npm test -C /tmp', 'npm run test --userconfig x.log',
    'npx --package=./x vitest', 'npx -p evil vitest', 'npx --node-options=--require=./x.log vitest',
    'npx vitest --config x.log', 'npx vitest -c x.log', 'npx vitest --global-setup=./x.log', 'npx vitest --setupFiles ./x.log',
    'npx vitest --reporter=./x.log', 'npx vitest run --coverage.provider=custom', 'npx vitest --outputFile=README.md',
    'pnpm test --dir /tmp', 'pnpm -C /tmp test', 'yarn test --cwd /tmp',
    // verified: vitest (the project's test script) loaded x.log as a reporter module and ran id
    'npm test -- --reporter=./x.log', 'npm run test -- --config x.log', 'npm test -- -r /tmp', 'npm test -- --require ./x.log',
    'pnpm test --reporter=./x.log', 'yarn test --setupFiles ./x.log', 'npx jest --config x.log',
    // verified: npm ran /usr/bin/id -c … (npm reads npm_config_* in any case)
    'Npm_Config_script_shell=/usr/bin/id npm test', 'npm_CONFIG_node_options=--require=./x.log npm test', 'YARN_YARN_PATH=x.log yarn test',
    // a project's scripts and tools may run or load what any variable names; only allowlisted ones pass (runner-environment.test.ts)
    'NODE_ENV=test npx vitest run', 'X=id npm test', 'export X=id; npm test', 'env X=id npm test',
    'RIPGREP_CONFIG_PATH=x.log rg x', 'NODE_EXTRA_CA_CERTS=.env npm test', 'NODE_REDIRECT_WARNINGS=README.md npm test', 'TMPDIR=.git npm test',
  ],
  // verified (the first line, cargo 1.95 with --offline): cargo ran /usr/bin/id target/debug/deps/c-… as the test runner
  'cargo and go run a program the line chose': [
    "cargo test --config 'target.x86_64-unknown-linux-gnu.runner=\"id\"'", "cargo check --config 'build.rustc-wrapper=\"id\"'",
    'cargo test -Zunstable-options', 'cargo +evil test', 'cargo test -- --logfile README.md', 'RUSTC_WRAPPER=id cargo test',
    'CARGO_BUILD_RUSTC_WRAPPER=id cargo test', 'GOENV=x.log go test', 'GOWORK=x.log go test', 'MAKE=id make test', 'COVERAGE_FILE=README.md pytest', 'go test -exec id ./...', 'go test --toolexec=id', 'go vet -vettool=/tmp/x',
    'go test -ldflags=-extld=id', 'go test -test.coverprofile=README.md', 'GOFLAGS=-toolexec=id go test', 'CC=id go test',
  ],
  // verified: `pytest @.env` printed "ERROR: file or directory not found: TOKEN=secret"
  'pytest reads, loads or writes what the line chose': [
    'pytest @.env', 'pytest @src/link/id_rsa', 'pytest -p x', 'pytest -vpx', 'pytest -o addopts=-px', 'pytest -c x.log',
    'pytest --basetemp=src', 'pytest --junitxml=README.md', 'PYTEST_ADDOPTS=-px pytest', 'PYTEST_PLUGINS=x pytest',
    'pytest /usr/lib/python3/x', 'pytest ../other', 'npm test -g', 'npm test --location=global', 'cargo -C /tmp test',
  ],
  // verified: `git log -L1,1:.env` printed the committed .env; `git diff -O.env` opened .env;
  // `git diff . /outside` and `--no-index` printed .env and .git/config
  'git reads protected files': [
    'git log -L1,1:.env', 'git log -L 1,1:.env', 'git log -L:main:.git/config', "git log -L '/a:b/,+1:.env'",
    'git diff -O.env', 'git diff --orderfile=.env', 'git diff --or=.env', 'git log -p -O.env',
    'git diff --no-index . /tmp', 'git diff --no-in . /tmp', 'git diff . /tmp', 'git diff ../ .', 'git diff /tmp .',
    // verified: both printed the committed .env
    "git show 'HEAD^{/ini:*t}:.env'", "git log -p -- ':(icase).ENV'", "git log -p -- ':(glob)**/.env'", "git log -p -- ':(top).env'",
    // verified: with .env deleted from the work tree (so no deny-only fact), this printed the committed .env
    'git diff HEAD~1:old/.env HEAD:README.md', 'git diff :old/.env HEAD:README.md',
  ],
  // verified: `wc --files0=l.log` and `wc --fi=l.log` opened .env (named in l.log)
  'file-list options in any abbreviation': ['wc --files0=l.log', 'wc --fi=l.log', 'wc --files0-from l.log'],
  // verified: `grep -R KEY src` opened src/link/id_rsa (-> ~/.ssh) and printed it; `grep -r TOKEN .` printed ./.env
  'recursive readers reach protected files under a directory': [
    'grep -r TOKEN .', 'grep -r TOKEN', 'grep -rn = .', 'grep -R KEY src', 'grep -d recurse TOKEN .', 'grep --directories=recurse TOKEN .',
    'grep -rn TODO homelink', 'rg --hidden TOKEN', 'rg -uu TOKEN', 'rg -. TOKEN', 'rg -L KEY src',
  ],
};

const everyday = [
  'make test', 'make test -j4', 'make -j4 test', 'make test -k -s', 'make --jobs=4 --keep-going test', 'make --no-print-directory test', 'npm test', 'npm test -- --reporter=dot', 'npm run lint -- --fix',
  'npm test -- --watch=false', 'npm test -- src/a.test.ts', 'npm test -- -u', 'CI=true npm test', 'CI=1 NO_COLOR=1 npx vitest run',
  'npx vitest run', 'npx vitest run --coverage', "npx vitest run src/a.test.ts -t 'parses'", 'npx vitest run --reporter=dot',
  'cargo test --workspace', 'cargo test -- --nocapture', 'go test -race ./...', 'go test -run TestParse ./pkg/...',
  'pytest -q', 'pytest -x tests/test_a.py', 'pytest -k parse', 'cargo test -p crate', 'pnpm -r test',
  "git show 'HEAD@{1}:README.md'", "git log -p -- 'src/*.ts'", 'wc -l src/a.ts', 'git log -L1,1:README.md', 'git diff main..feature', 'git diff HEAD~1 src', 'git diff -O README.md', 'git log --oneline -5',
  // grep -r skips the symlink src/link inside the tree, rg skips hidden .env and .git
  'grep -rn TODO src', 'grep -rn TODO sub', 'rg TODO src', 'rg TOKEN', 'grep -rn TODO src/a.ts',
];

describe('program-level red team', () => {
  redTeamCases(escapes, everyday, 'everyday lines of the same programs stay allowed under default.yaml');

  it('a recursive read is unresolvable where its tree cannot be listed, or is too large', async () => {
    const analysis = (await sharedAnalyzer()).analyze('grep -rn TODO src', { cwd: '/w', home: '/home/dev' });
    expect(treeReadFacts(analysis, undefined).unresolvable).toHaveLength(1);
    expect(treeReadFacts(analysis, () => 'too-many').unresolvable).toHaveLength(1);
    expect(treeReadFacts(analysis, () => ['/w/src/.env']).facts).toEqual([{ path: '/w/src/.env', access: 'read', origin: 'argument', flags: { denyOnly: true } }]);
  });

});
