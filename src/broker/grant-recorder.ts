import type { GrantScope } from '../grants/grant.js';
import type { GrantStore } from '../grants/store.js';
import type { PolicySet } from '../policy/types.js';
import type { GrantOffer } from './escalation-options.js';

/** Where a human's "always" applies: narrower wins, so any layer asking for project-scoped grants gets them. */
export function grantScopeFor(policy: PolicySet, workspace: string): GrantScope {
  const files = policy.files;
  return files.length === 0 || files.some((f) => f.grantScope === 'project') ? { type: 'project', dir: workspace } : { type: 'global' };
}

/**
 * Record what a human's "always" answer remembers; returns the new grants' ids. A grant that cannot
 * be recorded is reported: the answer still stands for this request, only its memory is lost.
 */
export function recordGrants(input: {
  store: GrantStore | undefined; policy: PolicySet; offer: GrantOffer; now: Date; log: (message: string) => void;
}): string[] {
  const { store, offer } = input;
  if (!store) return [];
  const ttls = input.policy.files.map((f) => f.grantTtlMs).filter((t): t is number => t !== undefined);
  const expiresAt = ttls.length > 0 ? new Date(input.now.getTime() + Math.min(...ttls)).toISOString() : undefined;
  const ids: string[] = [];
  for (const subject of offer.subjects) {
    try {
      const grant = store.add({ decision: offer.decision, subject, scope: offer.scope, source: 'client', label: offer.label, ...(expiresAt ? { expiresAt } : {}) });
      ids.push(grant.id);
    } catch (error) {
      input.log(`acp-broker: could not record the grant "${offer.label}": ${(error as Error).message}`);
    }
  }
  return ids;
}
