/**
 * A path pattern keeps its canonicalised anchor for the evaluation it was last asked in (one
 * PathContext), instead of rebuilding it for every path tested. Property: one matcher asked a
 * random sequence of paths, contexts and allow/deny sides answers exactly as a matcher compiled
 * afresh for every question.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePathMatcher } from '../../src/policy/patterns.js';
import type { PathContext, PathMatcher } from '../../src/policy/types.js';

const PATTERNS = ['/real/secret/**', '/link/secret/**', '${workspace}/conf/**', '~/.ssh/**', '/etc/*.conf', 'src/**', '**/.env'];
const PATHS = [
  '/real/secret/k', '/link/secret/k', '/ws/conf/a', '/wsreal/conf/a', '/home/dev/.ssh/id', '/homereal/.ssh/id',
  '/etc/x.conf', '/private/etc/x.conf', '/ws/src/a.ts', '/wsreal/src/a.ts', '/ws/.env', '/elsewhere/.env',
];
/** Where each context's file system leads a literal directory (others stay as written). */
const LINKS: readonly Readonly<Record<string, string>>[] = [
  {},
  { '/link': '/real', '/link/secret': '/real/secret', '/ws': '/wsreal', '/ws/conf': '/wsreal/conf', '/home/dev': '/homereal', '/home/dev/.ssh': '/homereal/.ssh', '/etc': '/private/etc' },
  { '/ws/conf': '/elsewhere', '/real/secret': '/link/secret', '/etc': '/private/etc' },
];

function context(links: number, withCanonicalizer: boolean): PathContext {
  const map = LINKS[links]!;
  return withCanonicalizer ? { workspace: '/ws', home: '/home/dev', canonicalize: (path) => map[path] ?? path } : { workspace: '/ws', home: '/home/dev' };
}

describe('path patterns: the canonical anchor kept per evaluation', () => {
  it('answers as a matcher compiled afresh for every question', () => {
    const question = fc.record({ path: fc.constantFrom(...PATHS), links: fc.integer({ min: 0, max: LINKS.length - 1 }), withCanonicalizer: fc.boolean(), forAllow: fc.boolean(), fresh: fc.boolean() });
    fc.assert(fc.property(fc.constantFrom(...PATTERNS), fc.array(question, { minLength: 1, maxLength: 40 }), (source, questions) => {
      const kept = compilePathMatcher(source) as PathMatcher;
      let current = context(0, true);
      for (const q of questions) {
        // A new evaluation (a new context) or more paths in the same one.
        if (q.fresh) current = context(q.links, q.withCanonicalizer);
        const afresh = compilePathMatcher(source) as PathMatcher;
        expect(kept.test(q.path, current, q.forAllow)).toBe(afresh.test(q.path, current, q.forAllow));
      }
    }), { numRuns: 2_000 });
  });
});
