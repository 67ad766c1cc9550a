import { posix } from 'node:path';

/** A path the kernel could not be followed to (a symlink loop, an unreadable link): never matched, never allowed. */
export interface UnresolvablePath {
  readonly unresolvable: string;
}

/**
 * Maps an absolute path (it may still hold `.` and `..`) to where the kernel would land: symlinks
 * resolved component by component before `..`, a final link followed, a missing tail kept as written.
 */
export interface PathCanonicalizer {
  (absolutePath: string): string | UnresolvablePath;
  /**
   * The existing paths a bash glob (absolute, literal directories canonical) expands to now, each
   * canonicalised; absent without a file system. Too many to list is unresolvable.
   */
  readonly expandGlob?: (absolutePattern: string) => readonly string[] | UnresolvablePath;
}

/** No file system: `..` applied lexically. For examples, tests and the in-process benchmark. */
export const lexicalOnly: PathCanonicalizer = (p) => posix.resolve(p);

export function isUnresolvablePath<T>(value: T | UnresolvablePath): value is UnresolvablePath {
  return typeof value === 'object' && value !== null && 'unresolvable' in value;
}

/**
 * The path an agent that tidies what the model wrote opens instead: Claude Code's Read, Write and Edit
 * trim it and normalise it to NFC before using it (its `expandPath`), so ` /etc/x` is /etc/x to it,
 * not a file under the cwd. Undefined when tidying changes nothing (or leaves nothing).
 */
export function tidiedPath(raw: string): string | undefined {
  const tidied = raw.trim().normalize('NFC');
  return tidied !== raw && tidied !== '' ? tidied : undefined;
}

/**
 * Resolve `~` and relative paths against `cwd`, keeping `..` for the canonicaliser: the kernel
 * applies `..` to the directory a symlink leads to, not to the link's own name.
 */
export function resolvePath(raw: string, cwd: string, home: string, canonicalize: PathCanonicalizer): string | UnresolvablePath {
  return canonicalize(absoluteOf(raw, cwd, home));
}

export interface ResolvedGlob {
  /** The glob with its literal leading directories canonicalised: what a file created later would match. */
  readonly pattern: string;
  /** Where the existing files it expands to really are (a wildcard may match a symlink). */
  readonly expansions: readonly string[];
  /** The expansions were read from the file system (false: a canonicaliser that cannot list files). */
  readonly expanded: boolean;
}

/**
 * A bash glob pattern (`/w/.git/hook[s]/*`): only its literal leading directories are real paths,
 * so only they are canonicalised; the files it matches now are listed by `expandGlob`. A `.` or `..`
 * after a wildcard component would step out of directories only known after expansion: unresolvable.
 */
export function resolveGlobPath(raw: string, cwd: string, home: string, canonicalize: PathCanonicalizer): ResolvedGlob | UnresolvablePath {
  const absolute = absoluteOf(raw, cwd, home);
  const parts = absolute.split('/').filter((part) => part !== '');
  const firstMagic = parts.findIndex(hasGlobMagic);
  if (firstMagic === -1) {
    const path = canonicalize(absolute);
    return isUnresolvablePath(path) ? path : { pattern: path, expansions: [], expanded: false };
  }
  const rest = parts.slice(firstMagic);
  if (rest.some((part) => part === '.' || part === '..')) {
    return { unresolvable: `glob pattern with \`.\` or \`..\` after a wildcard: ${raw}` };
  }
  const prefix = canonicalize(`/${parts.slice(0, firstMagic).join('/')}`);
  if (isUnresolvablePath(prefix)) return prefix;
  const pattern = `${prefix === '/' ? '' : prefix}/${rest.join('/')}`;
  if (!canonicalize.expandGlob) return { pattern, expansions: [], expanded: false };
  const expansions = canonicalize.expandGlob(pattern);
  return isUnresolvablePath(expansions) ? expansions : { pattern, expansions, expanded: true };
}

/** Unquoted bash glob characters in one path component (`[` only when a `]` closes it). */
export function hasGlobMagic(component: string): boolean {
  return /[*?]/.test(component) || /\[.+\]/.test(component);
}

function absoluteOf(raw: string, cwd: string, home: string): string {
  let p = raw;
  if (p === '~' || p.startsWith('~/')) p = home + p.slice(1);
  if (p.startsWith('file://')) {
    try { p = decodeURIComponent(new URL(p).pathname); } catch { /* keep as written */ }
  }
  return p.startsWith('/') ? p : `${cwd}/${p}`;
}
