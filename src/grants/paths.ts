/**
 * Path comparisons for grant scopes. String-based on purpose (pure, platform-neutral). A path with
 * `.` or `..` segments is never inside anything, so an unnormalised path fails closed.
 */

export function isWithin(child: string, parent: string): boolean {
  if (hasDotSegment(child) || hasDotSegment(parent)) return false;
  const c = trimTrailingSeparators(child);
  const p = trimTrailingSeparators(parent);
  if (c === p) return true;
  const separator = p.includes('\\') && !p.includes('/') ? '\\' : '/';
  const base = p.endsWith(separator) ? p : p + separator;
  return c.startsWith(base);
}

export function trimTrailingSeparators(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  // Keep roots: '/' and 'C:\'.
  if (trimmed === '') return path.slice(0, 1);
  if (/^[A-Za-z]:$/.test(trimmed)) return path.slice(0, 3);
  return trimmed;
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== '');
  return parts.at(-1) ?? path;
}

/** POSIX `/…`, Windows `C:\…` or `\\server\…`. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

function hasDotSegment(path: string): boolean {
  return path.split(/[\\/]/).some((segment) => segment === '.' || segment === '..');
}
