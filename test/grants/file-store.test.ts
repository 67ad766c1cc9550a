import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileGrantStore, type FileGrantStoreOptions } from '../../src/grants/file-store.js';
import type { GrantStoreProblem } from '../../src/grants/store.js';
import { GrantStoreError } from '../../src/grants/store.js';
import { commandGrant, fakeDeps, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();

function openStore(dir: string, extra: Partial<FileGrantStoreOptions> = {}) {
  const problems: GrantStoreProblem[] = [];
  const store = new FileGrantStore({ dir, ...fakeDeps(), onProblem: (p) => problems.push(p), ...extra });
  return { store, problems };
}

const grantsFile = (dir: string) => path.join(dir, 'grants.json');
const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('file store: persistence and sharing', () => {
  it('stores { version: 1, grants } in <dir>/grants.json, readable only by the user', () => {
    const dir = tempDir();
    const { store } = openStore(dir);
    const grant = store.add(commandGrant('npm test'));
    expect(store.path).toBe(grantsFile(dir));
    expect(readJson(grantsFile(dir))).toEqual({ version: 1, grants: [grant] });
    if (process.platform !== 'win32') expect(fs.statSync(grantsFile(dir)).mode & 0o777).toBe(0o600);
  });

  it('creates a missing directory on the first write, and reads nothing before that', () => {
    const dir = path.join(tempDir(), 'nested', 'home');
    const { store, problems } = openStore(dir);
    expect(store.list()).toEqual([]);
    store.add(commandGrant('npm test'));
    expect(fs.existsSync(grantsFile(dir))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('a later store instance, as a new process would, sees the grants', () => {
    const dir = tempDir();
    const first = openStore(dir).store;
    const a = first.add(commandGrant('npm test'));
    const b = first.add(commandGrant('git status', { decision: 'deny' }));
    expect(openStore(dir).store.list()).toEqual([a, b]);
  });

  it("a running store sees another store's adds and revokes without reload()", () => {
    const dir = tempDir();
    const mine = openStore(dir, { newId: () => `mine-${Math.random()}` }).store;
    const theirs = openStore(dir, { newId: () => `theirs-${Math.random()}` }).store;
    expect(mine.list()).toEqual([]);
    const added = theirs.add(commandGrant('npm test'));
    expect(mine.list()).toEqual([added]);
    mine.add(commandGrant('npm run lint'));
    expect(theirs.revoke(added.id)).toBe(true);
    expect(mine.list().map((g) => g.label)).toEqual(['`npm run lint` in project-x']);
  });

  it("with a freshness window, another store's change is seen once the window has passed, not before", () => {
    const dir = tempDir();
    let now = 1000;
    const mine = openStore(dir, { freshForMs: 100, monotonicMs: () => now, newId: () => `mine-${Math.random()}` }).store;
    const theirs = openStore(dir, { newId: () => `theirs-${Math.random()}` }).store;
    expect(mine.list()).toEqual([]);
    const added = theirs.add(commandGrant('npm test'));
    now += 99;
    expect(mine.list()).toEqual([]);
    now += 1;
    expect(mine.list()).toEqual([added]);
    // Its own writes are visible at once, whatever the window.
    const own = mine.add(commandGrant('npm run lint'));
    expect(mine.list()).toEqual([added, own]);
    expect(theirs.revoke(added.id)).toBe(true);
    expect(mine.list()).toEqual([added, own]);
    now += 100;
    expect(mine.list()).toEqual([own]);
  });

  it('writes by atomic replacement: a new file each time and no temp files left behind', () => {
    const dir = tempDir();
    const { store } = openStore(dir);
    store.add(commandGrant('npm test'));
    const before = fs.statSync(grantsFile(dir)).ino;
    const held = fs.openSync(grantsFile(dir), 'r'); // keep the old inode alive so it cannot be reused
    try {
      store.add(commandGrant('npm run lint'));
      expect(fs.statSync(grantsFile(dir)).ino).not.toBe(before);
    } finally {
      fs.closeSync(held);
    }
    expect(fs.readdirSync(dir).sort()).toEqual(['grants.json']);
  });

  it('prunes expired grants from the file on the next write', () => {
    const dir = tempDir();
    const deps = fakeDeps();
    const { store } = openStore(dir, deps);
    store.add(commandGrant('npm test', { expiresAt: '2025-06-01T12:30:00Z' }));
    deps.advance(3_600_000);
    store.add(commandGrant('git status'));
    const file = readJson(grantsFile(dir)) as { grants: { label: string }[] };
    expect(file.grants.map((g) => g.label)).toEqual(['`git status` in project-x']);
  });
});

describe('file store: a corrupt store', () => {
  it.each([
    ['invalid JSON', '{"version": 1, "grants": [ {"id": '],
    ['not an object', '[]\n'],
    ['wrong shape', '{"version": 1, "grants": {"id": "g1"}}'],
    ['no version', '{"grants": []}'],
    ['a malformed grant', JSON.stringify({ version: 1, grants: [{ id: 'g1', decision: 'always', subject: {}, scope: {} }] })],
    ['binary garbage', Buffer.from([0xff, 0xfe, 0x00, 0x13, 0x37]).toString('latin1')],
  ])('%s: is moved aside byte for byte, reported, and the store carries on empty', (_what, garbage) => {
    const dir = tempDir();
    fs.writeFileSync(grantsFile(dir), garbage, 'latin1');
    const original = fs.readFileSync(grantsFile(dir));
    const { store, problems } = openStore(dir);

    expect(store.list()).toEqual([]);
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    expect(problem).toMatchObject({ code: 'store_corrupt', backupPath: `${grantsFile(dir)}.corrupt-2025-06-01T12-00-00.000Z` });
    expect(fs.readFileSync(problem!.backupPath!)).toEqual(original);

    const grant = store.add(commandGrant('npm test'));
    expect(openStore(dir).store.list()).toEqual([grant]);
    expect(fs.readFileSync(problem!.backupPath!)).toEqual(original);
  });

  it('found by a write: the file is moved aside first, then the grant is written', () => {
    const dir = tempDir();
    fs.writeFileSync(grantsFile(dir), 'not json');
    const { store, problems } = openStore(dir);
    const grant = store.add(commandGrant('npm test'));
    expect(problems.map((p) => p.code)).toEqual(['store_corrupt']);
    expect(fs.readFileSync(problems[0]!.backupPath!, 'utf8')).toBe('not json');
    expect(store.list()).toEqual([grant]);
  });

  it('never overwrites an earlier backup', () => {
    const dir = tempDir();
    const { store, problems } = openStore(dir);
    fs.writeFileSync(grantsFile(dir), 'first');
    store.reload();
    fs.writeFileSync(grantsFile(dir), 'second');
    store.reload();
    expect(problems.map((p) => fs.readFileSync(p.backupPath!, 'utf8'))).toEqual(['first', 'second']);
  });

  it('a store written by a newer broker is ignored and left untouched, and not written over', () => {
    const dir = tempDir();
    const newer = JSON.stringify({ version: 2, grants: [{ anything: true }] });
    fs.writeFileSync(grantsFile(dir), newer);
    const { store, problems } = openStore(dir);
    expect(store.list()).toEqual([]);
    expect(store.list()).toEqual([]);
    expect(problems).toHaveLength(1); // reported once, not on every list()
    expect(problems[0]).toMatchObject({ code: 'store_corrupt' });
    expect(() => store.add(commandGrant('npm test'))).toThrow(GrantStoreError);
    expect(fs.readFileSync(grantsFile(dir), 'utf8')).toBe(newer);
    expect(fs.readdirSync(dir)).toEqual(['grants.json']);
  });
});

describe('file store: I/O failures', () => {
  it('an unwritable directory: store_io problem, a typed error from add, nothing crashes', () => {
    const base = tempDir();
    fs.writeFileSync(path.join(base, 'a-file'), '');
    const dir = path.join(base, 'a-file', 'home'); // under a regular file: unwritable even for root
    const { store, problems } = openStore(dir);
    expect(store.list()).toEqual([]);
    let thrown: unknown;
    try {
      store.add(commandGrant('npm test'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GrantStoreError);
    expect((thrown as GrantStoreError).code).toBe('store_io');
    expect(problems.map((p) => p.code)).toEqual(['store_io']);
    expect(() => store.revoke('g1')).toThrow(GrantStoreError);
  });

  it('an unreadable store: reported once, read as no grants, and writes refuse to replace it', () => {
    const dir = tempDir();
    fs.mkdirSync(grantsFile(dir)); // reading it fails with EISDIR, for root too
    const { store, problems } = openStore(dir);
    expect(store.list()).toEqual([]);
    expect(store.list()).toEqual([]);
    expect(problems.map((p) => p.code)).toEqual(['store_io']);
    expect(() => store.add(commandGrant('npm test'))).toThrow(GrantStoreError);
    expect(problems.map((p) => p.code)).toEqual(['store_io', 'store_io']);
    expect(fs.statSync(grantsFile(dir)).isDirectory()).toBe(true);
  });

  it('a failing onProblem callback does not break the store', () => {
    const dir = tempDir();
    fs.writeFileSync(grantsFile(dir), 'garbage');
    const store = new FileGrantStore({ dir, onProblem: () => { throw new Error('reporter down'); } });
    expect(store.list()).toEqual([]);
    expect(store.add(commandGrant('npm test')).decision).toBe('allow');
  });
});
