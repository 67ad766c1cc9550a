/**
 * npm, npx, pnpm, yarn and the words a project's script receives (src/shell/project-runners/:
 * node-packages.ts, npm-options.ts, script-words.ts, vitest-words.ts). Both are allowlists: an option
 * not known to be inert, or a script word that is not a project path or filter, makes the line
 * unresolvable. None of the `escapes` may be allowed under default.yaml or ci-strict.yaml; the
 * `everyday` lines stay allowed under default.yaml, and the `inert` lines (which default.yaml asks
 * for other reasons) get no unresolvable reason from these checks.
 *
 * Verified in throwaway projects under /tmp with the real programs (npm 11.19, node 20.20, vitest
 * 4.1.12, and mocha 11 / jest 30 installed into /tmp for these checks only):
 * - `"test": "node --test"`: `npm test -- x.log`, `npm test x.log` ran x.log (it created a file);
 *   `npm test -- a.test.js --testNamePattern=x.log` ran the file named `--testNamePattern=x.log`
 *   (node --test reads every word after the first file as a file, options included);
 *   `npm test -- --redirect-warnings=README.md w.test.js` wrote the warning into README.md.
 * - `npm run env --x=id --registry=http://127.0.0.1:9/` gave the script npm_config_x=id and
 *   npm_config_registry=http://127.0.0.1:9/; with a script printing its arguments, `npm run t --color
 *   always a`, `-D true a`, `--if-present false a` gave it `a` and `--silent true a` gave `true a`
 *   (nopt's values after a switch, as nopt-options.ts reads them).
 * - mocha: `mocha --spec x.log`, `mocha x.log`, `mocha '*.log'` and `mocha -u ./x.log` ran x.log; `mocha
 *   --openssl-config=x.log` made node read x.log as its OpenSSL config (mocha passes node's options
 *   on); unknown options (`--fix`, `--run`, `--coverage`, `--update` …) are ignored.
 * - jest: `--reporters=dot` tried to load a module `dot`; `-g`, `--grep`, `--fix`, `--run`, `--update`
 *   stop it ("Unrecognized CLI Parameter"); `--reporter=dot` is ignored.
 * - node 20: `node --test` refuses jest's and vitest's everyday switches (`--update`, `--bail=1`,
 *   `--runInBand`, `--maxWorkers=2`, `--watchAll=false`, `--testPathPattern=x`, `--no-coverage` …: "bad
 *   option") and `-i` ("either --test or --interactive can be used, not both").
 * - vitest: `vitest run --execArgv=--require=./x.log` ran x.log; an unknown option stops it (CACError);
 *   `vitest run x.log` / an absolute path only filter the project's test files (no run).
 * The other lines are the same options in other spellings, or pnpm / yarn / `--mode` taken from their
 * documentation.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from './helpers.js';
import { redTeamCases } from './red-team.js';

const escapes: Readonly<Record<string, readonly string[]>> = {
  // verified: node --test ran x.log and the file named --testNamePattern=x.log
  'a script runs a file the line named': [
    "echo 'require(\"child_process\").execSync(\"id > pwned.txt\")' > x.log && npm test -- x.log",
    'npm test x.log', 'npm run test -- x.log', 'npm run test x.log', 'npm test -- .env', 'npm test -- README.md',
    'npm test -- src/a.test.ts x.log', 'npm test -- a.test.js --testNamePattern=x.log', 'npm test -- a.test.js -t x.log',
    'npm test -- /tmp/x.js', 'npm test -- ../x.js', 'npm test -- src/../../x.js', "npm test -- '*.log'", "npm test -- 'src/**'", 'npm test -- x*',
    'npm test -- src/*', "npm test -- '.*/x.js'", "npm test -- 'x.?s'", "npm test -- '{x.log,a}'", "npm test -- '!(a).js'",
    'npm test -- ~/x.js', 'npm test -- x.log/', 'npm test -- x.log/.', 'npm test -- -- x.log',
    // verified: with link → a directory outside, node --test ran ./x.js but `cat link/../x.js` read the file outside
    'npm test -- link/../x.js', 'npx vitest run src/../../x.ts',
    'npm test --if-present x.log', 'npm test -D x.log', 'npm test --silent true x.log', 'npm test --color always x.log', 'npm test -w pkg-a x.log',
    'npm test -- node_modules/husky/index.js', 'pnpm test x.log', 'yarn test x.log', 'pnpm -r test x.log', 'pnpm run test x.log', 'npx mocha x.log',
  ],
  // verified: node wrote README.md, mocha ran x.log as a spec and as a UI module, jest looked for a reporter module
  'options of node or mocha reach the runner': [
    'npm test -- --redirect-warnings=README.md', 'npm test -- --openssl-config=x.log', 'npm test -- --diagnostic-dir=.git',
    'npm test -- --spec x.log', 'npm test -- -u ./x.log', 'npm test -- -u x.log', 'npm test -- --reporters=dot', 'npm test -- --reporter=spec',
    'npm test -- --reporter dot.log', 'pnpm test --openssl-config=x.log', 'yarn test --spec x.log', 'npx jest --reporters=dot', 'npx mocha --spec x.log',
    'npm test -- --fix=x.log', 'npm test -- --watch-path=/tmp', 'npm test -- -ux', 'npm test -- --shard=x.log',
    'npm test -- --bail=x.log', 'npm test -- --maxWorkers=x.log', 'npm test -- --testPathPattern=x.log', 'npx vitest run --project ../x', 'npm test -- --reporter=verbose',
  ],
  // verified: the script's environment held npm_config_x=id and npm_config_registry
  'npm configuration reaches the script': [
    'npm test --x=id', 'npm test --foo', 'npm run test --registry=http://127.0.0.1:9/', 'npm --registry=http://127.0.0.1:9/ test',
    'npm test -x', 'npm test --silent=x', 'npm test --loglevel=x', 'npm test -w /tmp', 'npm test -w ../other', 'npm test --workspace=-x',
    'npm test --no-silent', 'npm test -sx', 'npx --registry=http://127.0.0.1:9/ vitest', 'npx --foo vitest', 'npx -x vitest',
    'npm install --registry=http://127.0.0.1:9/ left-pad', 'npm publish --tag=-x', 'npm ci --script-shell=id',
    'pnpm --registry=http://127.0.0.1:9/ test', 'pnpm test --x=id', 'yarn --registry x test', 'pnpm --filter /tmp test',
    'npm exec vitest --reporter=./x.log', 'npm exec -- vitest --config x.log', 'npm x -- vitest --execArgv=--require=./x.log',
    'npm explore left-pad -- id', 'npm explo left-pad -- id', 'pnpm exec vitest --execArgv=--require=./x.log',
  ],
  // verified: vitest ran x.log through --execArgv
  'vitest options that load code, read env files or write the project': [
    'npx vitest run --execArgv=--require=./x.log', 'npx vitest run --exec-argv=--require=./x.log', 'npx vitest run --mode evil',
    'npx vitest init browser', 'npx vitest run --coverage.reportsDirectory=.git', 'npx vitest run -t x --execArgv --require=./x.log',
    'npx vitest run --reporter=blob', 'npx vitest run --reporter=./x.log', 'npx vitest run --attachmentsDir=.git', 'npx vitest run --clearCache',
    'npx vitest run -ur x', 'npx --yes vitest run --standalone --config=x.log', 'npx vitest@latest --config=x.log',
  ],
};

const everyday = [
  // jest's and vitest's everyday switches after `--` (node refuses them, `-i` included: "either --test or --interactive"; mocha ignores them)
  'npm test -- --update', 'npm test -- --bail=1', 'npm test -- --runInBand', 'npm test -- -i', 'npm test -- --watchAll=false', 'npm test -- --testPathPattern=parser',
  'npm run lint -- --max-warnings=0', 'npm test -- --no-coverage', 'npm test -- --maxWorkers=2', 'npm test -- --maxWorkers=50%', 'npm test -- --detectOpenHandles',
  'npm test -- --forceExit', 'npm test -- --testTimeout=10000', 'npx vitest run --changed', 'npx vitest run --project unit',
  'npm test', 'npm run test', 'npm test -- --watch=false', 'npm test -- src/a.test.ts', 'npm run test -- --reporter=dot', 'npm test -- -u',
  'npm run lint -- --fix', 'npx vitest run', 'npx vitest run test/shell', "npx vitest run src/a.test.ts -t 'parses'", 'npx vitest run --coverage',
  'npx vitest run --reporter=dot', 'pnpm -r test', 'yarn test', 'pnpm test', 'npx vitest --version', 'cd test && npx vitest run shell',
  'npm test --silent', 'npm test -s', 'npm run test --if-present', 'npm test -w pkg-a', 'npm test --workspace=@scope/a', 'npm test -ws --if-present',
  'npm test --workspaces --include-workspace-root', 'npm test --loglevel warn', 'npm test -- -t parses', "npm test -- -t 'parses a line'",
  'npm test -- ./src/a.test.ts', 'npm test -- src/*.ts', "npm test -- 'test/**/*.test.js'", 'npm test -- test/shell', 'npm test -- .', 'npm test -- --coverage', 'npm test -- --run',
  'npm test -- --shard=1/3', 'npm test --ignore-scripts', 'npm test --no-color', 'npm test --color always', 'npx --yes vitest run', 'npx -y vitest run', 'npx --no vitest run',
  'npx --prefer-offline vitest run', 'npx vitest run -u', 'npx vitest run --watch=false', 'npx vitest run --passWithNoTests --bail 1',
  "npx vitest run -t 'parses a.b line'", 'npx vitest run --testNamePattern=parses', 'npx vitest run --no-file-parallelism', 'npx vitest run --shard=1/3',
  'pnpm -r --parallel test', 'pnpm test -- --watch=false', 'yarn test --watch=false', 'yarn --silent test', 'pnpm test src/a.test.ts',
];

/** Asked by default.yaml for other reasons (no rule names them), but not unresolvable. */
const inert = [
  'npm run dev -- --help', 'npm run test:unit', 'npm run test:watch -- --run', 'npm install --save-dev vitest', 'npm ls --depth=0', 'npm audit --production',
  'npm pack --dry-run', 'yarn install --frozen-lockfile', 'pnpm install', 'npm view vitest version', 'npm config get registry', 'npx --yes cowsay hi',
  'npm --version', 'npm -v', 'pnpm exec vitest', 'npx tsc --noEmit', 'npm ci', 'npm run', 'npm start', 'npx jest --coverage', 'yarn', 'pnpm run build',
  'npm publish --access public', 'npm version patch -m "Release %s"', 'npm cache clean --force', 'npm ls -p --all', 'npm publish --tag next --otp 123456',
  'pnpm --filter pkg-a test', 'npm install -D vitest', 'npm outdated', 'npm explain yaml', 'npm exec -- vitest run', 'npx eslint src --ext .ts', 'npm i',
];

describe('npm, npx, pnpm, yarn and script words', () => {
  redTeamCases(escapes, everyday);

  it('every escape is unresolvable, whatever a policy allows', async () => {
    const resolved: string[] = [];
    for (const line of Object.values(escapes).flat()) if ((await analyze(line)).unresolvable.length === 0) resolved.push(line);
    expect(resolved).toEqual([]);
  });

  it('other everyday lines get no unresolvable reason', async () => {
    const reasons: { line: string; unresolvable: readonly string[] }[] = [];
    for (const line of inert) {
      const { unresolvable } = await analyze(line);
      if (unresolvable.length > 0) reasons.push({ line, unresolvable });
    }
    expect(reasons).toEqual([]);
  });

  it('names the option or word that is not allowed', async () => {
    expect((await analyze('npm test --x=id')).unresolvable.join()).toMatch(/npm --x/);
    expect((await analyze('npm test --script-shell=id')).unresolvable.join()).toMatch(/script-shell/);
    expect((await analyze('npm test -- x.log')).unresolvable.join()).toMatch(/x\.log/);
    expect((await analyze('npm test -- --openssl-config=x.log')).unresolvable.join()).toMatch(/test runner --openssl-config=x\.log loads code/);
    expect((await analyze('pnpm -C /tmp test')).unresolvable.join()).toMatch(/pnpm --dir/);
    expect((await analyze('npm test -- a.test.js --testNamePattern=x.log')).unresolvable.join()).toMatch(/script word --testNamePattern=x\.log: a file that is not/);
    expect((await analyze('npx vitest run --mode evil')).unresolvable.join()).toMatch(/--mode/);
  });
});
