import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGrantsCommand } from '../../src/grants/cli.js';
import { FileGrantStore } from '../../src/grants/file-store.js';
import type { GrantStore } from '../../src/grants/store.js';
import { createMemoryGrantStore } from '../../src/grants/store.js';
import { commandGrant, fakeDeps, PROJECT, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();

function run(args: string[], store: GrantStore, cwd = '/home/dev') {
  let stdout = '';
  let stderr = '';
  const code = runGrantsCommand(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd }, store);
  return { code, stdout, stderr };
}

function storeWithGrants(): GrantStore {
  const store = createMemoryGrantStore(fakeDeps());
  store.add(commandGrant('npm test'));
  store.add({
    decision: 'deny',
    subject: { type: 'url', host: 'example.com' },
    scope: { type: 'global' },
    source: 'desktop',
    expiresAt: '2025-07-01T00:00:00Z',
  });
  return store;
}

describe('grants list', () => {
  it('prints a table of what each grant covers', () => {
    expect(run(['list'], storeWithGrants())).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'ID  DECISION  COVERS                                     SCOPE                CREATED               SOURCE   EXPIRES',
        'g1  allow     `npm test` in project-x                    /home/dev/project-x  2025-06-01T12:00:00Z  client   never',
        'g2  deny      fetches from example.com in every project  global               2025-06-01T12:00:00Z  desktop  2025-07-01T00:00:00Z',
        '',
      ].join('\n'),
    });
  });

  it('says so when there are no grants', () => {
    expect(run(['list'], createMemoryGrantStore())).toEqual({ code: 0, stdout: 'No grants.\n', stderr: '' });
  });

  it('--json prints the grants as a JSON array', () => {
    const store = storeWithGrants();
    const result = run(['list', '--json'], store);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(store.list());
    expect(JSON.parse(run(['list', '--json'], createMemoryGrantStore()).stdout)).toEqual([]);
  });

  it('shows hidden characters in labels instead of printing them to the terminal', () => {
    const store = createMemoryGrantStore(fakeDeps());
    store.add({ ...commandGrant('x'), label: 'npm test\u001b[2K\rallow everything' });
    expect(run(['list'], store).stdout).toContain('npm test\\u{1b}[2K\\u{d}allow everything');
  });
});

describe('grants revoke', () => {
  it('removes the grant and says what it covered', () => {
    const store = storeWithGrants();
    expect(run(['revoke', 'g1'], store)).toEqual({ code: 0, stdout: 'Revoked g1: `npm test` in project-x\n', stderr: '' });
    expect(store.list().map((g) => g.id)).toEqual(['g2']);
  });

  it('exits 1 with a message when there is no such grant', () => {
    const store = storeWithGrants();
    expect(run(['revoke', 'nope'], store)).toEqual({ code: 1, stdout: '', stderr: 'acp-broker grants: no grant with id nope\n' });
    expect(store.list()).toHaveLength(2);
  });
});

describe('grants clear', () => {
  it('removes every grant and prints how many', () => {
    const store = storeWithGrants();
    expect(run(['clear'], store)).toEqual({ code: 0, stdout: 'Removed 2 grants\n', stderr: '' });
    expect(run(['clear', '--json'], store)).toEqual({ code: 0, stdout: '{"removed":0}\n', stderr: '' });
  });

  it('--project DIR removes only that project\'s grants; a relative DIR is taken from the cwd', () => {
    const store = storeWithGrants();
    expect(run(['clear', '--project', '/elsewhere'], store).stdout).toBe('Removed 0 grants for /elsewhere\n');
    expect(run(['clear', '--project=project-x'], store, '/home/dev')).toEqual({
      code: 0,
      stdout: `Removed 1 grant for ${PROJECT}\n`,
      stderr: '',
    });
    expect(store.list().map((g) => g.id)).toEqual(['g2']);
  });
});

describe('usage and failures', () => {
  it.each([
    [[]],
    [['frobnicate']],
    [['list', '--bogus']],
    [['list', 'extra']],
    [['revoke']],
    [['revoke', '--json']],
    [['revoke', 'a', 'b']],
    [['clear', '--project']],
    [['clear', '--project=']],
    [['clear', '--all']],
    [['clear', '--project', '/a', '/b']],
  ])('%j → exit 2 with usage on stderr, nothing changed', (args) => {
    const store = storeWithGrants();
    const result = run(args, store);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^acp-broker grants: .+\nusage: acp-broker grants list/);
    expect(store.list()).toHaveLength(2);
  });

  it('--help prints usage on stdout', () => {
    const result = run(['--help'], createMemoryGrantStore());
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^usage: acp-broker grants list \[--json\]/);
  });

  it('a store that cannot be written: exit 1 with the reason, no exception', () => {
    const base = tempDir();
    fs.writeFileSync(path.join(base, 'a-file'), '');
    const store = new FileGrantStore({ dir: path.join(base, 'a-file', 'home') });
    const result = run(['clear'], store);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^acp-broker grants: cannot write .*grants\.json: ENOTDIR/);
  });
});
