/**
 * `<dir>/grants.json` itself: `{ "version": 1, "grants": [...] }`, read directly and written through
 * `conf` (atomic temp-file + fsync + rename writes, file mode 0600), its identity on disk for
 * caching, and moving a corrupt one aside. No locking and no reporting: file-store.ts decides when
 * each is done.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Conf from 'conf';
import type { Grant } from './grant.js';
import { errorCode } from './lock.js';
import { checkGrantsFile, GRANTS_FILE_VERSION, type GrantsFile } from './shape.js';

const GRANTS_FILE_NAME = 'grants.json';

/**
 * conf is loaded on the first write, synchronously (Node ≥ 20.19 requires an ES module in place).
 * Reading the store is on the first decision's path and writing is rare (a human's "always"), and
 * conf with its dependencies costs more to load than the rest of the store (bench/RESULTS.md,
 * issue 14).
 */
const requireFromHere = createRequire(import.meta.url);
let confClass: typeof Conf | undefined;
function loadConf(): typeof Conf {
  confClass ??= (requireFromHere('conf') as { default: typeof Conf }).default;
  return confClass;
}

export type ReadResult =
  | { readonly kind: 'ok'; readonly grants: readonly Grant[] }
  | { readonly kind: 'missing' }
  | { readonly kind: 'corrupt'; readonly reason: string }
  | { readonly kind: 'newer'; readonly reason: string }
  | { readonly kind: 'io'; readonly error: unknown };

/** Thrown by conf's deserialize hook, so failures are told apart by class, not by message text. */
class StoreFormatError extends Error {
  constructor(
    message: string,
    readonly newerVersion: number | undefined,
  ) {
    super(message);
  }
}

export class StoreFile {
  readonly dir: string;
  readonly path: string;
  #conf: Conf<GrantsFile> | undefined;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
    this.path = path.join(this.dir, GRANTS_FILE_NAME);
  }

  /** The grants on disk, deep-frozen; never throws. */
  read(): ReadResult {
    try {
      // The whole file, as conf would read it (its deserializer is parseGrantsText too).
      const data = parseGrantsText(fs.readFileSync(this.path, 'utf8'));
      return { kind: 'ok', grants: deepFreeze(data.grants) };
    } catch (error) {
      if (error instanceof StoreFormatError) {
        return error.newerVersion === undefined ? { kind: 'corrupt', reason: error.message } : { kind: 'newer', reason: error.message };
      }
      // As existsSync would say: nothing there (ENOTDIR: a file where a directory of the path should be).
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
      return { kind: 'io', error };
    }
  }

  write(grants: readonly Grant[]): void {
    this.#openConf().store = { version: GRANTS_FILE_VERSION, grants };
  }

  /** Identity of the file on disk; 'missing' when absent, undefined when it cannot be checked. */
  stamp(): string | undefined {
    try {
      const s = fs.statSync(this.path, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch (error) {
      const code = errorCode(error);
      return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : undefined;
    }
  }

  /** Renames the file, byte for byte, to a free `grants.json.corrupt-<time>`; returns that path. Throws when the rename fails. */
  moveAside(now: Date): string {
    const backupPath = this.#freeBackupPath(now);
    fs.renameSync(this.path, backupPath);
    return backupPath;
  }

  #freeBackupPath(now: Date): string {
    const time = now.toISOString().replaceAll(':', '-');
    const base = `${this.path}.corrupt-${time}`;
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!fs.existsSync(candidate)) return candidate;
    }
  }

  #openConf(): Conf<GrantsFile> {
    // Constructed lazily: conf reads (and validates) the file in its constructor.
    const ConfClass = loadConf();
    this.#conf ??= new ConfClass<GrantsFile>({
      cwd: this.dir,
      configName: 'grants',
      fileExtension: 'json',
      projectName: 'acp-broker',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false, // we back a corrupt store up instead of emptying it
      serialize: (value) => `${JSON.stringify(value, undefined, 2)}\n`,
      deserialize: parseGrantsText,
    });
    return this.#conf;
  }
}

function parseGrantsText(text: string): GrantsFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StoreFormatError(`invalid JSON: ${describeError(error)}`, undefined);
  }
  const check = checkGrantsFile(value);
  if (!check.ok) throw new StoreFormatError(check.reason, check.newerVersion);
  return check.file;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
