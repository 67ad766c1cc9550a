import { readFileSync } from 'node:fs';

/**
 * The id of the running build: the one scripts/bundle.mjs writes beside the bundle's chunks
 * (dist/bin/build-id: a hash of the bundle's files and of the versions of the packages it loads),
 * with the version of Node running it (the examples were checked, the patterns compiled, by its
 * engine). What a policy loads to is recorded for one build only (policy-snapshots.ts). Code run
 * from anywhere else (tsc's dist/, the tests' src/) finds no id beside it: it never restores.
 */
export function buildId(): string | undefined {
  try {
    const id = readFileSync(new URL('./build-id', import.meta.url), 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(id) ? `${id} node ${process.version}` : undefined;
  } catch {
    return undefined;
  }
}
