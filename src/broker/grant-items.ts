import type { CallFacts } from '../core/facts.js';
import { grantCoversItem, subjectOfItem, type Grant, type GrantItem, type GrantSubject } from '../grants/grant.js';
import type { GrantStore } from '../grants/store.js';
import type { CallItem } from '../policy/items.js';
import type { GrantHit, GrantLookup } from '../policy/evaluate.js';

function toGrantItem(item: CallItem, facts: CallFacts): GrantItem {
  switch (item.type) {
    case 'command': return { type: 'command', command: item.command };
    case 'path': return { type: 'path', path: item.path.path, access: item.path.access };
    case 'url': return { type: 'url', url: item.url };
    case 'none': return { type: 'none', kind: facts.kind, tool: facts.tool };
  }
}

export function subjectFor(item: CallItem, facts: CallFacts): GrantSubject | undefined {
  return subjectOfItem(toGrantItem(item, facts));
}

/** Remembered decisions as the evaluator sees them; a deny grant wins over an allow grant. */
export function grantLookup(store: GrantStore, now: () => Date): GrantLookup {
  // One read of the store per call judged, not per item (each read may stat the file). The memo
  // lives only for the current synchronous evaluation, so a grant added later is always seen.
  let lastFacts: CallFacts | undefined;
  let lastGrants: readonly Grant[] = [];
  return (item, facts) => {
    if (facts !== lastFacts) {
      lastFacts = facts;
      lastGrants = store.list();
      queueMicrotask(() => { lastFacts = undefined; });
    }
    const grants = lastGrants;
    if (grants.length === 0) return undefined;
    const grantItem = toGrantItem(item, facts);
    const context = { workspace: facts.workspace, now: now(), ...(facts.agent !== undefined ? { agent: facts.agent } : {}) };
    let hit: Grant | undefined;
    for (const grant of grants) {
      if (!grantCoversItem(grant, grantItem, context)) continue;
      if (grant.decision === 'deny') return toHit(grant);
      hit ??= grant;
    }
    return hit ? toHit(hit) : undefined;
  };
}

function toHit(grant: Grant): GrantHit {
  return { id: grant.id, decision: grant.decision };
}
