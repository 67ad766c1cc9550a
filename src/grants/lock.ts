/**
 * A cross-process exclusive lock on a file path, synchronous because the grant store is.
 *
 * The lock is a file created with O_EXCL ('wx'), holding `{pid, host, nonce, acquiredAt}`. A lock
 * is stale when its owner is a dead process on this host, or it is older than `staleMs` (covers
 * crashes on other hosts and reused pids; a critical section takes milliseconds). A stale lock is
 * broken by renaming it aside and checking that what was moved is the lock judged stale, so two
 * waiters breaking the same lock cannot remove a fresh one taken in between.
 */
import fs from 'node:fs';
import os from 'node:os';

export interface FileLockOptions {
  /** Give up after waiting this long. */
  readonly timeoutMs?: number;
  /** A lock older than this is stale whoever holds it. */
  readonly staleMs?: number;
  /** Wall clock in ms; locks are shared between processes, so this is never a test's fake clock. */
  readonly clock?: () => number;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;
export const DEFAULT_LOCK_STALE_MS = 10_000;

/** The lock could not be taken in time (another process holds it). */
export class LockTimeoutError extends Error {
  readonly code = 'lock_timeout';

  constructor(readonly lockPath: string, waitedMs: number) {
    super(`timed out after ${waitedMs} ms waiting for the lock ${lockPath}`);
    this.name = 'LockTimeoutError';
  }
}

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly nonce: string;
  readonly acquiredAt: number;
}

export function withFileLock<T>(lockPath: string, fn: () => T, options: FileLockOptions = {}): T {
  const owner = acquire(lockPath, options);
  try {
    return fn();
  } finally {
    release(lockPath, owner);
  }
}

function acquire(lockPath: string, options: FileLockOptions): LockOwner {
  const clock = options.clock ?? Date.now;
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_LOCK_STALE_MS;
  const started = clock();
  for (let attempt = 0; ; attempt++) {
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), nonce: randomNonce(), acquiredAt: clock() };
    if (tryCreate(lockPath, owner)) return owner;
    const seen = readLock(lockPath);
    if (seen !== undefined && isStale(seen, staleMs, clock())) {
      breakStale(lockPath, seen);
      continue;
    }
    const waited = clock() - started;
    if (waited >= timeoutMs) throw new LockTimeoutError(lockPath, waited);
    // Short, growing, jittered sleeps: critical sections are a read and an atomic write.
    sleepSync(Math.min(2 + attempt, 25) * (0.5 + Math.random()));
  }
}

function tryCreate(lockPath: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = fs.openSync(lockPath, 'wx', 0o600);
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, JSON.stringify(owner));
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

interface SeenLock {
  readonly text: string;
  readonly ino: number;
  /** Undefined while the owner is still writing it (or if it is garbage). */
  readonly owner: LockOwner | undefined;
  readonly mtimeMs: number;
}

function readLock(lockPath: string): SeenLock | undefined {
  try {
    const stat = fs.statSync(lockPath);
    const text = fs.readFileSync(lockPath, 'utf8');
    return { text, ino: stat.ino, owner: parseOwner(text), mtimeMs: stat.mtimeMs };
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined; // released meanwhile: just retry
    throw error;
  }
}

function isStale(seen: SeenLock, staleMs: number, now: number): boolean {
  const since = seen.owner?.acquiredAt ?? seen.mtimeMs;
  if (now - since > staleMs) return true;
  return seen.owner !== undefined && seen.owner.host === os.hostname() && !isProcessAlive(seen.owner.pid);
}

function breakStale(lockPath: string, seen: SeenLock): void {
  const aside = `${lockPath}.stale-${process.pid}-${randomNonce()}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return; // someone else broke or released it
    throw error;
  }
  const moved = fs.statSync(aside);
  const movedText = fs.readFileSync(aside, 'utf8');
  if (moved.ino !== seen.ino || movedText !== seen.text) {
    // We moved a lock taken after we judged the old one stale: put it back unless yet another
    // process already holds the path (then both proceed; only reachable in a three-way race).
    try {
      fs.linkSync(aside, lockPath);
    } catch {
      // see above
    }
  }
  fs.rmSync(aside, { force: true });
}

function release(lockPath: string, owner: LockOwner): void {
  // Only remove our own lock: if we were too slow and someone broke it, it is theirs now.
  const seen = readLockQuietly(lockPath);
  if (seen?.owner?.nonce === owner.nonce) fs.rmSync(lockPath, { force: true });
}

function readLockQuietly(lockPath: string): SeenLock | undefined {
  try {
    return readLock(lockPath);
  } catch {
    return undefined;
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, host, nonce, acquiredAt } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || typeof host !== 'string' || typeof nonce !== 'string' || typeof acquiredAt !== 'number') {
      return undefined;
    }
    return { pid, host, nonce, acquiredAt };
  } catch {
    return undefined;
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM'; // exists, owned by someone else
  }
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

function randomNonce(): string {
  return globalThis.crypto.randomUUID();
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
