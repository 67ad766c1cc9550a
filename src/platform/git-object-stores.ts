/** A repository's object directory and its alternates, searched as one, in git's order. */
import { ObjectStore, type ObjectContent, type StoredObject, type Unknown } from './git-object-store.js';

export class ObjectStores {
  private readonly stores: readonly ObjectStore[];

  constructor(directories: readonly string[]) {
    this.stores = directories.map((directory) => new ObjectStore(directory));
  }

  find(prefix: string): readonly string[] | Unknown {
    const found = new Set<string>();
    for (const store of this.stores) {
      const ids = store.find(prefix);
      if ('unknown' in ids) return ids;
      for (const id of ids) found.add(id);
    }
    return [...found];
  }

  object(id: string): StoredObject | Unknown | undefined {
    for (const store of this.stores) {
      const object = store.object(id);
      if (object !== undefined) return object;
    }
    return undefined;
  }

  content(id: string): ObjectContent | Unknown | undefined {
    for (const store of this.stores) {
      const content = store.content(id);
      if (content !== undefined) return content;
    }
    return undefined;
  }

  close(): void {
    for (const store of this.stores) store.close();
  }
}
