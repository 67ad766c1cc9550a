import { readdirSync, realpathSync, statSync } from 'node:fs';
import type { TreeLister } from '../facts/tree-facts.js';

/**
 * What a recursive reader (`grep -r`, `rg`) reaches under a directory, from the disk: every entry's
 * path as the program opens it. Symlinks inside the tree are skipped unless it follows them (`grep
 * -R`, `rg -L`; then each is listed — the policy resolves it — and a directory it names is walked
 * once); hidden entries are skipped when the reader skips them (`rg` without `--hidden`). Past
 * `limit` entries: 'too-many'. A root that is not a directory gives nothing; an unreadable
 * directory inside is skipped (the program cannot read it either). No cache: the tree changes.
 */
export function diskTreeLister(): TreeLister {
  return (root, read, limit) => {
    const found: string[] = [];
    const seen = new Set<string>();
    const pending: string[] = [root];
    try {
      if (!statSync(root).isDirectory()) return found;
      seen.add(realpathSync(root));
    } catch {
      return found;
    }
    while (pending.length > 0) {
      const directory = pending.pop()!;
      let entries;
      try {
        entries = readdirSync(directory, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (!read.hidden && entry.name.startsWith('.')) continue;
        const path = `${directory === '/' ? '' : directory}/${entry.name}`;
        if (entry.isSymbolicLink()) {
          if (!read.follow) continue;
          found.push(path);
          const target = directoryTarget(path);
          if (target !== undefined && !seen.has(target)) {
            seen.add(target);
            pending.push(path);
          }
        } else {
          found.push(path);
          if (entry.isDirectory()) pending.push(path);
        }
        if (found.length > limit) return 'too-many';
      }
    }
    return found;
  };
}

/** The real path of the directory a symlink names; undefined when it names no directory. */
function directoryTarget(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}
