import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { hasGlobMagic, type PathCanonicalizer, type UnresolvablePath } from '../facts/paths.js';
import { bashComponentRegExp } from '../policy/glob-bash.js';

/** Links followed for one path before giving up, as the kernel does (Linux: 40, ELOOP). */
const MAX_LINKS = 40;

/**
 * Resolve a path the way the kernel does when a program opens it: component by component from the
 * root, each symlink replaced by its target (relative targets against the link's directory) before
 * any later `..` applies, a final link followed even when it dangles (a write lands at its target).
 * From the first component that does not exist on, the rest is kept lexically. A loop, or a link
 * that cannot be read, is unresolvable. No cache: the agent may change a link between two requests.
 */
export function realpathCanonicalizer(): PathCanonicalizer {
  return Object.assign((absolute: string) => resolvePhysically(absolute), { expandGlob });
}

export function resolvePhysically(absolute: string): string | UnresolvablePath {
  const pending = components(absolute).reverse();
  const resolved: string[] = [];
  let exists = true;
  let links = 0;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === '..') {
      resolved.pop();
      continue;
    }
    resolved.push(part);
    if (!exists) continue;
    const here = `/${resolved.join('/')}`;
    const kind = entryKind(here);
    if (kind === 'missing') {
      exists = false;
      continue;
    }
    if (kind !== 'link') continue;
    // `/proc/self`, `/proc/PID/cwd`, `…/fd/N` and the like name another thing in the agent's process.
    if (here.startsWith('/proc/')) return { unresolvable: `${here} means something else to the process that opens it (${absolute})` };
    if (++links > MAX_LINKS) return { unresolvable: `too many levels of symbolic links resolving ${absolute}` };
    let target: string;
    try {
      target = readlinkSync(here);
    } catch {
      return { unresolvable: `cannot read the symbolic link ${here} to resolve ${absolute}` };
    }
    resolved.pop();
    if (target.startsWith('/')) resolved.length = 0;
    for (const next of components(target).reverse()) pending.push(next);
  }
  return `/${resolved.join('/')}`;
}

function components(path: string): string[] {
  return path.split('/').filter((part) => part !== '' && part !== '.');
}

/**
 * Missing also when it cannot be inspected (a file used as a directory, a directory the user may not
 * search): the agent runs as the same user, so the kernel fails there too and nothing is followed.
 */
function entryKind(path: string): 'missing' | 'link' | 'other' {
  try {
    // A missing entry is the common case (a file about to be written): undefined costs far less
    // than an exception (bench/RESULTS.md, "Issue 14, eighth session").
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats === undefined ? 'missing' : stats.isSymbolicLink() ? 'link' : 'other';
  } catch {
    return 'missing';
  }
}

/** Expansions listed before a glob counts as too wide to judge file by file. */
const MAX_EXPANSIONS = 1000;

/**
 * The existing paths a bash glob expands to, as bash finds them in directory listings — with
 * dotglob, which a persistent agent shell may have set (see policy/glob-bash.ts) — each then
 * resolved physically.
 */
function expandGlob(pattern: string): readonly string[] | UnresolvablePath {
  let candidates = [''];
  for (const part of pattern.split('/').filter((p) => p !== '')) {
    if (!hasGlobMagic(part)) {
      candidates = candidates.map((dir) => `${dir}/${part}`);
      continue;
    }
    const name = bashComponentRegExp(part);
    const next: string[] = [];
    for (const dir of candidates) {
      let entries: string[];
      try {
        entries = readdirSync(dir === '' ? '/' : dir);
      } catch {
        continue;
      }
      for (const entry of entries) if (name.test(entry)) next.push(`${dir}/${entry}`);
      if (next.length > MAX_EXPANSIONS) return { unresolvable: `the glob ${pattern} matches too many files to judge` };
    }
    candidates = next;
  }
  const out: string[] = [];
  for (const candidate of candidates) {
    if (!existsThrough(candidate)) continue;
    const resolved = resolvePhysically(candidate);
    if (typeof resolved !== 'string') return resolved;
    out.push(resolved);
  }
  return out;
}

function existsThrough(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
