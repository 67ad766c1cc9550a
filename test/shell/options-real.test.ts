/**
 * long-options.ts against the real programs: a prefix our lists call unique must be accepted by
 * the program (neither unknown nor ambiguous). A sample of every program's options, shortest
 * unique prefix each, run with no operands in a throwaway repository.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LONG_OPTIONS, PARTIAL_LONG_OPTIONS } from '../../src/shell/long-options.js';

const dir = mkdtempSync(join(tmpdir(), 'options-real-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
spawnSync('git', ['init', '-q', dir]);
const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
const SAMPLE_EVERY = 6;

function shortestUniquePrefix(name: string, names: readonly string[]): string | undefined {
  for (let length = 1; length < name.length; length++) {
    const prefix = name.slice(0, length);
    if (names.filter((other) => other.startsWith(prefix)).length === 1) return prefix;
  }
  return undefined;
}

const programs = Object.entries(LONG_OPTIONS).filter(([key]) => !PARTIAL_LONG_OPTIONS.has(key));

describe('unique prefixes are accepted by the real programs', () => {
  it.each(programs)('%s', (key, list) => {
    const argv = key.split(' ');
    if (spawnSync('sh', ['-c', `command -v ${argv[0]}`]).status !== 0) return;
    const names = list.split(' ').map((option) => option.replace(/=$/, ''));
    const rejected: string[] = [];
    // git's negated forms (`--no-…`) follow their own abbreviation rules: not sampled.
    names.filter((name, index) => index % SAMPLE_EVERY === 0 && !name.startsWith('no-')).forEach((name) => {
      const prefix = shortestUniquePrefix(name, names);
      if (prefix === undefined) return;
      const real = spawnSync('timeout', ['5', ...argv, `--${prefix}`], { cwd: dir, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (/unrecognized|unknown option|invalid option|ambiguous/.test(real.stderr)) rejected.push(`--${prefix} (${name}): ${real.stderr.split('\n')[0]}`);
    });
    expect(rejected).toEqual([]);
  });
});
