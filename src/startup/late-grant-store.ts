import type { Grant } from '../grants/grant.js';
import type { ClearFilter, GrantInput, GrantStore } from '../grants/store.js';

/**
 * The grants store, attached once its module has loaded (conf is slow to import, and loads after
 * the agent has spoken). Decisions wait for the engine anyway; until attached it remembers nothing
 * and refuses to record.
 */
export class LateGrantStore implements GrantStore {
  private store: GrantStore | undefined;

  attach(store: GrantStore): void {
    this.store = store;
  }

  list(): Grant[] {
    return this.store?.list() ?? [];
  }

  add(input: GrantInput): Grant {
    if (!this.store) throw new Error('the grants store is not open yet');
    return this.store.add(input);
  }

  revoke(id: string): boolean {
    return this.store?.revoke(id) ?? false;
  }

  clear(filter?: ClearFilter): number {
    return this.store?.clear(filter) ?? 0;
  }

  reload(): void {
    this.store?.reload();
  }
}
