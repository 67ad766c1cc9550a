/**
 * cargo, go and pytest are allowlists (src/shell/project-runners/): only options known to choose
 * none of what runs, is loaded or written pass; make's targets must be plain names in the project.
 * Every group below was allowed under default.yaml before (checked by running this file against the
 * previous commit's code); none may be allowed under default.yaml or ci-strict.yaml now, and the
 * everyday lines stay allowed under default.yaml.
 *
 * Lines under a `verified:` comment were run for real in throwaway directories under /tmp
 * (pytest 9.0.3 with pytest-benchmark 5.2, both as `pytest` and `python3 -m pytest`; GNU make 4.3;
 * cargo 1.95 --offline on a fresh `cargo new`) and did what the comment says. The others are the
 * same option in other spellings, or taken from documentation: go is not installed here, so its
 * lines come from `go help build|test|testflag` and cmd/go's source (cmdflag/flag.go,
 * test/testflag.go, test/flagdefs.go), and the cargo lines that are "not modelled" are refused
 * because nothing proves them inert (cargo 1.95 itself refuses `--target x.json` without
 * -Zjson-target-spec, and libtest refuses `--frob`: verified).
 */
import { describe, expect, it } from 'vitest';
import { sharedAnalyzer } from './helpers.js';
import { redTeamCases } from './red-team.js';

const escapes: Readonly<Record<string, readonly string[]>> = {
  // verified: pytest ran the doctest in x.log (pwned.txt created), and imported `this` (printed the Zen) from -W's category
  'pytest runs code named by an option': [
    `printf '>>> import os; os.system("id > pwned.txt")\\n0\\n' > x.log && pytest --doctest-glob='*.log' x.log`,
    "pytest --doctest-glob '*.log' x.log", 'pytest -W error::this.W', 'pytest -Werror::x.W', 'pytest --pythonwarnings=error::x.W',
  ],
  // verified: pdb read the line's stdin and ran it (a file created); pytest-benchmark emptied README.md, and imported
  // `this` (printed the Zen) for --benchmark-timer; pytest-html and pytest-cov are not installed here (their documentation)
  'pytest debuggers and report files': [
    `echo 'import os; os.system("id")' | pytest --trace`, 'pytest --pdb', 'pytest --benchmark-json=README.md', 'pytest --html=README.md',
    'pytest --cov-config=x.log', 'pytest --cov-report=html:/tmp/x', 'pytest --benchmark-timer=this.x', 'pytest --frob',
  ],
  // verified: `pytest tests -- -pthis` and `python3 -m pytest tests -- -px` imported the module (pytest's plugin pre-scan
  // reads every word); `pytest -- @.env` and `pytest -k @.env` printed TOKEN=secret (argparse reads @FILE anywhere)
  'pytest reads every word before parsing': ['pytest tests -- -px', 'pytest tests -- -p x', 'pytest -- @.env', 'pytest -k @.env', 'pytest tests -- @.env'],
  // verified: `pytest tests -- ../outside/test_o.py` and `-- /tmp/…/outside` ran the outside test module (a file created)
  'pytest paths outside the project': [
    'pytest tests -- ../outside/test_o.py', 'pytest -- /tmp/outside', 'pytest --ignore=/tmp', 'pytest --ignore ../x', 'pytest --deselect=../x.py::t',
    'pytest --ignore-glob=/tmp/*',
  ],
  // verified: libtest's getopts took `--` as --skip's value and wrote lf.txt
  'cargo options outside the allowlist': [
    'cargo test -- --skip -- --logfile lf.txt',
    'cargo test --frob', 'cargo check --frob', 'cargo test --target ./x.json', 'cargo test --target=x.json', 'cargo check --target /tmp/spec',
    'cargo test -- --frob', 'cargo test -- -Z unstable-options --format json', 'cargo test -- --logf x.log', 'cargo test --workspac',
    'cargo test --release -Fx --frob',
  ],
  'go flags, packages and test binary arguments outside the allowlist': [
    'go test -mod=mod example.com/x', 'go test -mod mod ./...', 'go test ../other/...', 'go test ./a/../../x', 'go test /abs/pkg',
    'go test example.com/x@v1.0.0', 'go test -frob ./...', 'go test ./... -args -update', 'go test ./... -args /tmp/x', 'go test ./... -- -x',
    'go test ./... -v extra', 'go -C /tmp test ./...', 'go test -C=/tmp ./...', 'go vet -frob ./...', 'go test -vet=off,vettool ./...', 'go test -coverpkg=../other/... ./...', 'go test -buildmode=plugin ./...',
  ],
  // verified: after the allowed `echo '>>> import os; os.system("id > pwned.txt")' > x.log && echo > ./--doctest-glob=x.log`,
  // bash expanded `*.log` to `--doctest-glob=x.log x.log` and pytest ran the doctest (pwned.txt created)
  'a glob that may expand to options': ['pytest -q *.log', 'pytest *', 'pytest -k parse ?*', 'cargo test *', 'make test [a-z]*', 'go test *'],
  // verified: with a `build-%: ; @echo building $*` rule, make ran `touch pwned.log`; the built-in `%: %.sh` rule wrote ../out/tool
  'make targets that run or write what the line chose': [
    "make test 'build-x;touch pwned.log'", 'make test ../out/tool', 'make test /tmp/x', "make test 'x y'", 'make test -- ../x',
  ],
};

const everyday = [
  'cargo test', 'cargo test --workspace', 'cargo test -- --nocapture', 'cargo test -p crate', 'cargo check', 'cargo test --release',
  'cargo test -- --test-threads=1', 'cargo test -- --test-threads 1 --exact parse', 'cargo test parse -- --nocapture --skip slow',
  'cargo test --all-features --no-fail-fast', 'cargo check --all-targets --message-format=json', 'cargo test -q', 'cargo -q test',
  'cargo test --target x86_64-unknown-linux-gnu', 'cargo check --locked --offline', 'cargo test -j4', 'cargo test -F serde',
  'cargo test --features=a,b', 'cargo test -rp crate', 'cargo test --doc', 'cargo test --test integration -- --ignored',
  'go test ./...', 'go test -run TestParse ./pkg/...', 'go test -race ./...', 'go test -v -count=1 ./...', 'go test -cover ./...',
  'go test ./... -run TestX -v', 'go test -tags integration -timeout 30s ./...', 'go test -json ./...', 'go test -mod=vendor ./...',
  'go test -bench=. -benchmem ./...', 'go test -v ./... -args -test.v', 'go test github.com/acme/x/pkg', 'go test .', 'go test -test.run=X ./...',
  'go vet ./...', 'go vet -printf=false ./...',
  'pytest', 'pytest -q', 'pytest -x tests/test_a.py', 'pytest -k parse', 'pytest -vv -x --tb=short', 'pytest tests/test_a.py::test_parse -q',
  "pytest -k 'not slow' -m unit", 'pytest --lf', 'pytest --maxfail=1 -rA', 'pytest -p no:cacheprovider', 'pytest -q -W error::DeprecationWarning',
  'pytest --durations=10', 'pytest --co -q', 'pytest -n 4', 'pytest --ignore=tests/slow', 'pytest -xkparse', 'pytest --sw', 'pytest tests -- tests/test_b.py', 'pytest tests/*',
  'make test', 'make test -j4', 'make -j4 test', 'make test -k -s',
];

describe('project runners as allowlists', () => {
  redTeamCases(escapes, everyday);

  it('the reason names the option, value or word the analysis refused', async () => {
    const analyzer = await sharedAnalyzer();
    const reasons = (line: string) => analyzer.analyze(line, { cwd: '/w', home: '/home/dev' }).unresolvable;
    expect(reasons('cargo test --frob')).toEqual(['cargo --frob: an option the analysis does not know']);
    expect(reasons('cargo test --target ./x.json')).toEqual(['cargo --target ./x.json: a target spec file, not a target triple']);
    expect(reasons('cargo test -- --logfile x.log')).toEqual(['cargo test -- --logfile writes a file the line chose']);
    expect(reasons('cargo install x')).toEqual(['cargo install: a subcommand the analysis does not model']);
    expect(reasons('go test -mod=mod ./...')).toEqual(['go test -mod mod: takes readonly|vendor']);
    expect(reasons('go test ./... -args -update')).toEqual(['go test -args -update: a flag the analysis does not know']);
    expect(reasons('go test -exec id ./...')).toEqual(['go test -exec: runs, loads or writes what the line chose']);
    expect(reasons('pytest --pdb')).toEqual(['pytest --pdb loads or writes what the line chose']);
    expect(reasons('pytest tests -- -px')).toEqual(['pytest -p x: imports a plugin the line chose']);
    expect(reasons('pytest -W error::x.W')).toEqual(['pytest -W error::x.W: imports the module of its warning category']);
    expect(reasons('make test ../out/tool')).toEqual(['make ../out/tool: a target outside the project (a rule would write it)']);
  });

  it('reads values as each parser does: a separate value starting with - is also read as an option', async () => {
    const analyzer = await sharedAnalyzer();
    const reasons = (line: string) => analyzer.analyze(line, { cwd: '/w', home: '/home/dev' }).unresolvable;
    // clap takes an optional value only when it does not start with `-`: `--config` is cargo's option here
    expect(reasons('cargo test -p --config=x')).toEqual(['cargo --config runs or writes what the line chose']);
    // argparse refuses `-k -px`, but the pre-scan would import x: refused either way
    expect(reasons('pytest -k -px')).toHaveLength(1);
    // cmd/go takes the next word as the value whatever it is: `-run -exec` runs no program
    expect(reasons('go test -run -exec ./...')).toEqual([]);
  });
});
