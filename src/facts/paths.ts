import { posix } from 'node:path';

/** Maps an absolute, lexically normal path to its canonical form (symlinks of existing prefixes resolved). */
export type PathCanonicalizer = (absolutePath: string) => string;

export const lexicalOnly: PathCanonicalizer = (p) => p;

/** Resolve `~`, relative and `..` segments against the session cwd, then canonicalise. */
export function resolvePath(raw: string, cwd: string, home: string, canonicalize: PathCanonicalizer): string {
  let p = raw;
  if (p === '~' || p.startsWith('~/')) p = home + p.slice(1);
  if (p.startsWith('file://')) {
    try { p = decodeURIComponent(new URL(p).pathname); } catch { /* keep as written */ }
  }
  const absolute = posix.resolve(cwd, p);
  return canonicalize(absolute);
}
