import type { Decision } from '../core/decision.js';

/**
 * Whether path pattern `broad` provably matches every path `narrow` does, for rules of `decision`
 * (the linter's "shadowed rule"). Only one shape is judged: `broad` is a literal directory and
 * `/**` (`src/**`, `~/.ssh/**`, `/etc/**`) and `narrow`, anchored the same way, lies inside it.
 * Symlinks decide the rest: a deny or ask pattern is also tried with its literal leading
 * directories resolved (policy/patterns.ts), so `src/a.ts` may lead out of `src/**`; there the
 * narrow pattern must not name a longer literal directory than the broad one. An allow pattern
 * only resolves its root (home, workspace, first directory), which both share.
 */
export function pathPatternCovers(broad: string, narrow: string, decision: Decision): boolean {
  const wide = anchored(broad);
  const inner = anchored(narrow);
  if (!wide || !inner || wide.anchor !== inner.anchor || !wide.rest.endsWith('/**')) return false;
  const dir = wide.rest.slice(0, -3);
  if (MAGIC.test(dir) || (wide.anchor === 'absolute' && dir === '') || !plainSegments(dir) || !plainSegments(inner.rest)) return false;
  if (inner.rest !== dir && !inner.rest.startsWith(`${dir}/`)) return false;
  if (decision === 'allow' || inner.rest === dir) return true;
  // Deny and ask: the narrow pattern's literal directories must end where the broad one's do.
  const next = inner.rest.slice(dir.length + 1).split('/')[0]!;
  return MAGIC.test(next);
}

const MAGIC = /[*?[\]{}()!+@\\]/;
const WORKSPACE = '${workspace}';

/** The anchor of a pattern and what follows it (`/…` or empty); undefined for by-name and `**` patterns. */
function anchored(source: string): { anchor: 'absolute' | 'home' | 'workspace'; rest: string } | undefined {
  if (source.startsWith('/')) return { anchor: 'absolute', rest: source };
  if (source === '~' || source.startsWith('~/')) return { anchor: 'home', rest: source.slice(1) };
  if (source.startsWith(WORKSPACE)) return { anchor: 'workspace', rest: source.slice(WORKSPACE.length) };
  if (source.startsWith('**') || !source.includes('/')) return undefined;
  return { anchor: 'workspace', rest: `/${source.replace(/^\.\//, '')}` };
}

/** No `.`, `..` or empty segments (the pattern would not mean the directory it spells). */
function plainSegments(rest: string): boolean {
  return rest === '' || (rest.startsWith('/') && rest.slice(1).split('/').every((s) => s !== '' && s !== '.' && s !== '..'));
}
