import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import type { PathCanonicalizer } from '../facts/paths.js';

/**
 * Resolve symlinks in the longest existing prefix of a path, so a link inside the workspace that
 * points outside it is judged by where it leads. Nonexistent tails are kept as written. No cache:
 * the agent may create a link between two requests, and a stale answer would be a bypass.
 */
export function realpathCanonicalizer(): PathCanonicalizer {
  return (absolute) => {
    let prefix = absolute;
    const tail: string[] = [];
    for (;;) {
      try {
        const resolved = realpathSync.native(prefix);
        return tail.length ? posix.join(resolved, ...tail) : resolved;
      } catch {
        if (prefix === '/' || prefix === '.' || prefix === '') return absolute;
        tail.unshift(posix.basename(prefix));
        prefix = posix.dirname(prefix);
      }
    }
  };
}
