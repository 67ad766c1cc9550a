import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';

// Every shell example in the README runs, from a checkout, and shows what the README says it shows.
// `acp-broker` in an example is the built CLI (`npm link` would put it on PATH); each runs with its
// own ACP_BROKER_HOME so nothing of the machine's own state is used or changed.

interface Example {
  readonly line: number;
  readonly code: string;
  /** The fenced block right after it, when it is the example's output. */
  readonly output: string | undefined;
}

function examples(): Example[] {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const start = i;
    const body: string[] = [];
    for (i++; lines[i] !== '```'; i++) body.push(lines[i]!);
    let output: string | undefined;
    if (lines[i + 1] === '```') {
      const out: string[] = [];
      for (i += 2; lines[i] !== '```'; i++) out.push(lines[i]!);
      output = out.join('\n');
    }
    found.push({ line: start + 1, code: body.join('\n'), output });
  }
  return found;
}

/**
 * Examples this test does not run, and the test that runs what they show instead: `.ci/run` runs
 * `npm ci` and `npm test`; a global install and a real agent with an API key are the user's; examples
 * with placeholders (`ID`) or a long-running process are shown by their own tests.
 */
const RUN_ELSEWHERE: readonly { readonly pattern: RegExp; readonly coveredBy: string }[] = [
  { pattern: /^npm ci && npm run demo$/, coveredBy: 'test/docs/readme-examples.test.ts' },
  { pattern: /^npm test$/, coveredBy: '.ci/run' },
  { pattern: /^npm install -g acp-broker/, coveredBy: 'package.json' },
  { pattern: /-- claude-code-acp$/, coveredBy: 'test/relay/exec.test.ts' },
  { pattern: /^acp-broker daemon &/, coveredBy: 'test/daemon/lifecycle.test.ts' },
  { pattern: /^acp-broker approvals/, coveredBy: 'test/daemon/terminal.test.ts' },
  { pattern: /^acp-broker grants list/, coveredBy: 'test/grants/cli.test.ts' },
];

function runnable(code: string): string {
  // One command may span lines with `\`; `acp-broker ` at a line start (indented inside a loop too) is the built CLI.
  return code.replace(/^(\s*)acp-broker /gm, `$1node ${join(ROOT, 'dist', 'bin', 'acp-broker.js')} `);
}

describe('the README\'s examples', () => {
  const all = examples();

  it('has examples, and each is either run here or named as run elsewhere', () => {
    expect(all.length).toBeGreaterThan(5);
  });

  for (const example of all) {
    const elsewhere = RUN_ELSEWHERE.find(({ pattern }) => example.code.split('\n').some((line) => pattern.test(line.trim())));
    if (elsewhere) {
      it(`line ${example.line}: shown by ${elsewhere.coveredBy}`, () => expect(existsSync(join(ROOT, elsewhere.coveredBy))).toBe(true));
      continue;
    }
    it(`line ${example.line}: ${example.code.split('\n')[0]}`, () => {
      const home = tempDir('acp-broker-readme-');
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', runnable(example.code)], {
        cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ACP_BROKER_HOME: home },
      });
      // `check` exits with its decision (0 allow, 1 deny, 3 ask), which the shown output names.
      const decision = /^decision: (ALLOW|DENY|ASK)/.exec(example.output ?? '')?.[1];
      expect(result.status, `${example.code}\n${result.stderr}`).toBe(decision === 'DENY' ? 1 : decision === 'ASK' ? 3 : 0);
      if (example.output !== undefined) expect(result.stdout.trimEnd()).toBe(example.output.trimEnd());
    }, 90_000);
  }

  it('npm run demo prints its summary (the Quick start\'s promise)', () => {
    const result = spawnSync('npm', ['run', '--silent', 'demo'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ACP_BROKER_HOME: tempDir('acp-broker-readme-') } });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/\d+ allowed, \d+ fell back, \d+ denied/);
  }, 150_000);
});
