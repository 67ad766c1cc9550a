/**
 * The grant store on disk: `<dir>/grants.json` (the file itself, through `conf`: store-file.ts).
 *
 * Several brokers share the file (one per editor session). conf is not multi-process safe, so every
 * mutation runs under a cross-process lock (`grants.json.lock`, see lock.ts) and re-reads the file
 * inside it before changing it: no process ever writes a list it read before taking the lock.
 * Reads are lock-free (a rename is atomic, so a reader sees the old or the new file, never a torn
 * one) and cached until the file's identity (inode, size, mtime, ctime) changes.
 *
 * Fail-safe: a corrupt file is moved aside to `grants.json.corrupt-<time>` (never deleted), reported
 * through onProblem, and the store carries on with no grants. A file from a newer broker is left
 * untouched and ignored. Nothing here throws from list(); writes throw GrantStoreError.
 */
import fs from 'node:fs';
import { assertNever } from '../core/decision.js';
import type { Grant } from './grant.js';
import { DEFAULT_LOCK_STALE_MS, DEFAULT_LOCK_TIMEOUT_MS, LockTimeoutError, withFileLock } from './lock.js';
import type { ClearFilter, GrantInput, GrantStore, GrantStoreDeps, GrantStoreProblem } from './store.js';
import { addGrant, clearGrants, defaultNewId, GrantStoreError, InvalidGrantError, pruneExpired, revokeGrant } from './store.js';
import { deepFreeze, describeError, StoreFile } from './store-file.js';

export interface FileGrantStoreOptions extends Partial<GrantStoreDeps> {
  /** Directory of grants.json: ACP_BROKER_HOME, or the user config directory (see location.ts). */
  readonly dir: string;
  /** Told about a corrupt or unreadable store; the broker prints it and audits it. */
  readonly onProblem?: (problem: GrantStoreProblem) => void;
  readonly lock?: { readonly timeoutMs?: number; readonly staleMs?: number };
  /**
   * How long a read may trust the cache before looking at the file again (ms, monotonic). 0, the
   * default, looks on every read. A broker deciding thousands of requests a second passes a short
   * window: another process's change is then seen within it, and a stat per decision is saved.
   */
  readonly freshForMs?: number;
  /** Monotonic milliseconds, for the freshness window; tests inject one. */
  readonly monotonicMs?: () => number;
}

interface Cache {
  /** File identity the grants were read from; undefined forces a re-read. */
  readonly stamp: string | undefined;
  readonly grants: readonly Grant[];
}

export class FileGrantStore implements GrantStore {
  readonly path: string;
  readonly #file: StoreFile;
  readonly #lockPath: string;
  readonly #deps: GrantStoreDeps;
  readonly #onProblem: (problem: GrantStoreProblem) => void;
  readonly #lockOptions: { timeoutMs: number; staleMs: number };
  #cache: Cache = { stamp: undefined, grants: [] };
  #lastProblem: string | undefined;
  readonly #freshForMs: number;
  readonly #monotonicMs: () => number;
  /** When the file was last looked at (monotonic ms); -Infinity forces a look. */
  #lookedAt = -Infinity;

  constructor(options: FileGrantStoreOptions) {
    this.#file = new StoreFile(options.dir);
    this.path = this.#file.path;
    this.#lockPath = `${this.path}.lock`;
    this.#deps = { now: options.now ?? (() => new Date()), newId: options.newId ?? defaultNewId };
    this.#onProblem = options.onProblem ?? (() => {});
    this.#lockOptions = {
      timeoutMs: options.lock?.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
      staleMs: options.lock?.staleMs ?? DEFAULT_LOCK_STALE_MS,
    };
    this.#freshForMs = options.freshForMs ?? 0;
    this.#monotonicMs = options.monotonicMs ?? (() => performance.now());
  }

  list(): Grant[] {
    this.#refresh();
    return pruneExpired(this.#cache.grants, this.#deps.now());
  }

  add(input: GrantInput): Grant {
    return this.#mutate((grants) => {
      const result = addGrant(grants, input, this.#deps);
      return { grants: result.grants, changed: true, value: result.grant };
    });
  }

  revoke(id: string): boolean {
    return this.#mutate((grants) => {
      const { grants: kept, removed } = revokeGrant(grants, id);
      return { grants: kept, changed: removed > 0, value: removed > 0 };
    });
  }

  clear(filter?: ClearFilter): number {
    return this.#mutate((grants) => {
      const { grants: kept, removed } = clearGrants(grants, filter);
      return { grants: kept, changed: removed > 0, value: removed };
    });
  }

  reload(): void {
    this.#cache = { stamp: undefined, grants: [] };
    this.#lookedAt = -Infinity;
    this.#refresh();
  }

  #refresh(): void {
    const now = this.#monotonicMs();
    if (this.#freshForMs > 0 && this.#cache.stamp !== undefined && now - this.#lookedAt < this.#freshForMs) return;
    this.#lookedAt = now;
    const stamp = this.#file.stamp();
    if (stamp !== undefined && stamp === this.#cache.stamp) return;
    const read = this.#file.read();
    switch (read.kind) {
      case 'ok':
        this.#lastProblem = undefined;
        this.#cache = { stamp, grants: read.grants };
        return;
      case 'missing':
        this.#lastProblem = undefined;
        this.#cache = { stamp, grants: [] };
        return;
      case 'corrupt':
        this.#cache = { stamp, grants: [] };
        this.#recheckUnderLock();
        return;
      case 'newer':
        this.#cache = { stamp, grants: [] };
        this.#report({ code: 'store_corrupt', message: `${this.path}: ${read.reason}; ignoring it and leaving it untouched` }, 'once');
        return;
      case 'io':
        this.#cache = { stamp: undefined, grants: [] };
        this.#report({ code: 'store_io', message: `cannot read ${this.path}: ${describeError(read.error)}` }, 'once');
        return;
      default:
        return assertNever(read, 'read result');
    }
  }

  #mutate<T>(change: (grants: Grant[]) => { grants: Grant[]; changed: boolean; value: T }): T {
    try {
      fs.mkdirSync(this.#file.dir, { recursive: true, mode: 0o700 });
      return withFileLock(
        this.#lockPath,
        () => {
          // Merge-on-write: start from what is on disk now, not from our cache.
          const current = this.#readForWrite();
          const live = pruneExpired(current, this.#deps.now());
          const result = change(live);
          if (result.changed || live.length !== current.length) this.#file.write(result.grants);
          this.#cache = { stamp: this.#file.stamp(), grants: deepFreeze(result.grants) };
          return result.value;
        },
        this.#lockOptions,
      );
    } catch (error) {
      if (error instanceof GrantStoreError || error instanceof InvalidGrantError) throw error;
      const message =
        error instanceof LockTimeoutError
          ? `another acp-broker holds the grants store: ${error.message}`
          : `cannot write ${this.path}: ${describeError(error)}`;
      this.#report({ code: 'store_io', message });
      throw new GrantStoreError('store_io', message, { cause: error });
    }
  }

  /** Inside the lock: the grants to build on, after moving a corrupt file aside. */
  #readForWrite(): Grant[] {
    const read = this.#file.read();
    switch (read.kind) {
      case 'ok':
        return [...read.grants];
      case 'missing':
        return [];
      case 'corrupt':
        this.#quarantine(read.reason);
        return [];
      case 'newer': {
        const message = `${this.path}: ${read.reason}; not changing it`;
        this.#report({ code: 'store_corrupt', message });
        throw new GrantStoreError('store_corrupt', message);
      }
      case 'io': {
        const message = `cannot read ${this.path}: ${describeError(read.error)}`;
        this.#report({ code: 'store_io', message });
        throw new GrantStoreError('store_io', message, { cause: read.error });
      }
      default:
        return assertNever(read, 'read result');
    }
  }

  /**
   * A lock-free reader found a corrupt file. Re-check under the lock before acting: the file may
   * have been replaced meanwhile, or caught mid-write where conf does not write atomically (it
   * falls back to plain writes under Snap). Only a file still corrupt under the lock is moved aside.
   */
  #recheckUnderLock(): void {
    try {
      withFileLock(
        this.#lockPath,
        () => {
          const stamp = this.#file.stamp();
          const read = this.#file.read();
          if (read.kind === 'ok') this.#cache = { stamp, grants: read.grants };
          if (read.kind === 'corrupt') {
            this.#quarantine(read.reason);
            this.#cache = { stamp: this.#file.stamp(), grants: [] };
          }
          // Anything else: the cache stays empty for the stamp seen, and the next list() looks again.
        },
        this.#lockOptions,
      );
    } catch (error) {
      // #quarantine reports its own failures; here only the lock can have failed.
      if (error instanceof GrantStoreError) return;
      this.#report({ code: 'store_corrupt', message: `${this.path} looks corrupt and could not be checked under the lock: ${describeError(error)}` }, 'once');
    }
  }

  /** Under the lock: move the corrupt file aside, byte for byte, and report where it went. */
  #quarantine(reason: string): void {
    let backupPath: string;
    try {
      backupPath = this.#file.moveAside(this.#deps.now());
    } catch (error) {
      const message = `${this.path} is corrupt (${reason}) and could not be moved aside: ${describeError(error)}`;
      this.#report({ code: 'store_corrupt', message });
      // Never write over a corrupt store we could not back up.
      throw new GrantStoreError('store_corrupt', message, { cause: error });
    }
    this.#report({
      code: 'store_corrupt',
      message: `${this.path} was corrupt (${reason}); moved it to ${backupPath} and continuing with no grants`,
      backupPath,
    });
  }

  /** 'once': a problem seen by reads is reported once, not on every list(), until reads recover. */
  #report(problem: GrantStoreProblem, repeat: 'always' | 'once' = 'always'): void {
    if (repeat === 'once' && problem.message === this.#lastProblem) return;
    this.#lastProblem = problem.message;
    try {
      this.#onProblem(problem);
    } catch {
      // A failing reporter must not turn a recoverable store problem into a crash.
    }
  }
}
