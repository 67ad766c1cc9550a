/** POSIX path helpers (pure string work; no file system, so symlinks are not resolved here). */
import { posix } from 'node:path';

/** Resolves `target` against the absolute directory `cwd` and normalises `.`, `..` and `//`. */
export function resolvePath(cwd: string, target: string): string {
  return posix.resolve(cwd, target);
}

/**
 * `target` joined to `cwd` as the kernel receives it, when `target` has a `..` segment (else
 * undefined): `.` and empty segments dropped, `..` kept, since the kernel applies it after following
 * symlinks (`link/../x` is next to the link's target, not next to the link).
 */
export function kernelPathOf(cwd: string, target: string): string | undefined {
  if (!target.split('/').includes('..')) return undefined;
  const joined = target.startsWith('/') ? target : `${cwd}/${target}`;
  return `/${joined.split('/').filter((part) => part !== '' && part !== '.').join('/')}`;
}

/** Normalises without resolving: `./a//b/` → `a/b`, `//` → `/`. */
export function normalizeRelative(word: string): string {
  if (word === '' || !word.includes('/')) return word; // nothing to normalise without a slash
  const normalized = posix.normalize(word);
  const trimmed = normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
  return trimmed.startsWith('./') ? trimmed.slice(2) : trimmed;
}

export function basename(word: string): string {
  if (!word.includes('/')) return word;
  const trimmed = word.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash === -1 ? trimmed : trimmed.slice(slash + 1);
}

/** Devices that are not files an agent could damage; redirects to them are not reported. */
const HARMLESS_DEVICES: ReadonlySet<string> = new Set([
  '/dev/null',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
  '/dev/fd/0',
  '/dev/fd/1',
  '/dev/fd/2',
]);

export function isHarmlessDevice(absolutePath: string): boolean {
  return HARMLESS_DEVICES.has(absolutePath);
}
