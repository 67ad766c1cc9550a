/**
 * Deny-only facts for the trees recursive readers read (`grep -r x .` opens `./.env` and
 * `./.git/config`; `grep -R x src` follows `src/link` to `~/.ssh`): every entry the program reaches
 * under a directory argument is a read only deny rules see — an allow never needs them, and the
 * directory itself is still the read allow rules decide. Without a lister, or past the limit, the
 * call is unresolvable: what such a read reaches is not known.
 */
import type { CommandAnalysis, TreeRead } from '../shell/types.js';
import type { ShellPathFact } from './argument-facts.js';

/** Paths a recursive reader reaches under `root` (absolute; the root excluded); 'too-many' past `limit`. */
export type TreeLister = (root: string, read: TreeRead, limit: number) => readonly string[] | 'too-many';

/** Entries listed per call, all trees together. */
const MAX_TREE_ENTRIES = 20_000;

const DENY_ONLY = Object.freeze({ denyOnly: true as const });
const NONE: readonly never[] = Object.freeze([]);

export function treeReadFacts(analysis: CommandAnalysis, listTree: TreeLister | undefined): { readonly facts: readonly ShellPathFact[]; readonly unresolvable: readonly string[] } {
  let facts: ShellPathFact[] | undefined;
  let budget = MAX_TREE_ENTRIES;
  const redirections = analysis.redirections;
  for (let i = 0; i < redirections.length; i++) {
    const r = redirections[i]!;
    if (!r.recursive) continue;
    const root = r.kernelPath ?? r.path;
    if (!listTree) return { facts: NONE, unresolvable: [`${r.operator} reads the tree under ${root}, which cannot be listed here`] };
    if (r.glob) return { facts: NONE, unresolvable: [`${r.operator} reads the trees under a glob pattern: ${root}`] };
    const entries = listTree(root, r.recursive, budget);
    if (entries === 'too-many') return { facts: NONE, unresolvable: [`${r.operator} reads more than ${MAX_TREE_ENTRIES} entries under ${root}`] };
    budget -= entries.length;
    for (let k = 0; k < entries.length; k++) (facts ??= []).push({ path: entries[k]!, access: 'read', origin: 'argument', flags: DENY_ONLY });
  }
  return { facts: facts ?? NONE, unresolvable: NONE };
}
