import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileGrantStore } from '../../src/grants/file-store.js';
import { LockTimeoutError, withFileLock } from '../../src/grants/lock.js';
import { GrantStoreError } from '../../src/grants/store.js';
import { commandGrant, fakeDeps, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

function writeLock(lockPath: string, owner: { pid: number; host?: string; acquiredAt?: number }) {
  fs.writeFileSync(lockPath, JSON.stringify({ host: os.hostname(), nonce: 'someone-else', acquiredAt: Date.now(), ...owner }));
}

describe('cross-process lock', () => {
  it('is exclusive and released afterwards, even when the critical section throws', () => {
    const lockPath = path.join(tempDir(), 'x.lock');
    expect(() =>
      withFileLock(lockPath, () => {
        expect(fs.existsSync(lockPath)).toBe(true);
        expect(() => withFileLock(lockPath, () => 'nested', { timeoutMs: 50 })).toThrow(LockTimeoutError);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it('breaks a lock left by a dead process', () => {
    const lockPath = path.join(tempDir(), 'x.lock');
    writeLock(lockPath, { pid: deadPid() });
    expect(withFileLock(lockPath, () => 'ran', { timeoutMs: 1_000 })).toBe('ran');
    expect(fs.readdirSync(path.dirname(lockPath))).toEqual([]);
  });

  it('breaks a lock older than staleMs even if its pid is alive (reused pid, other host)', () => {
    const lockPath = path.join(tempDir(), 'x.lock');
    writeLock(lockPath, { pid: process.pid, acquiredAt: Date.now() - 60_000 });
    expect(withFileLock(lockPath, () => 'ran', { timeoutMs: 1_000, staleMs: 10_000 })).toBe('ran');
    writeLock(lockPath, { pid: 1, host: 'elsewhere', acquiredAt: Date.now() - 60_000 });
    expect(withFileLock(lockPath, () => 'ran', { timeoutMs: 1_000, staleMs: 10_000 })).toBe('ran');
  });

  it('breaks an unreadable lock only once it is old', () => {
    const lockPath = path.join(tempDir(), 'x.lock');
    fs.writeFileSync(lockPath, '');
    expect(() => withFileLock(lockPath, () => 'ran', { timeoutMs: 100 })).toThrow(LockTimeoutError);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lockPath, old, old);
    expect(withFileLock(lockPath, () => 'ran', { timeoutMs: 1_000 })).toBe('ran');
  });

  it('a store whose lock is held by a live process fails with store_io in bounded time', () => {
    const dir = tempDir();
    writeLock(path.join(dir, 'grants.json.lock'), { pid: process.pid });
    const problems: string[] = [];
    const store = new FileGrantStore({ dir, ...fakeDeps(), lock: { timeoutMs: 200 }, onProblem: (p) => problems.push(p.code) });
    const started = Date.now();
    expect(() => store.add(commandGrant('npm test'))).toThrow(GrantStoreError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(problems).toEqual(['store_io']);
    expect(fs.existsSync(path.join(dir, 'grants.json.lock'))).toBe(true); // not ours to remove
  });
});
