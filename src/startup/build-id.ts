import { readFileSync } from 'node:fs';

/**
 * The id of the running bundle, which scripts/bundle.mjs writes beside its chunks (dist/bin/build-id):
 * a hash of the bundle's files and of the versions of the packages it loads. What a policy loads to
 * is recorded for one build only (policy-snapshots.ts). Code run from anywhere else (tsc's dist/,
 * the tests' src/) finds no id beside it, and so never restores a recorded load.
 */
export function buildId(): string | undefined {
  try {
    const id = readFileSync(new URL('./build-id', import.meta.url), 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}
