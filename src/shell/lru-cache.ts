import { dropOldest } from '../core/bounded-collections.js';

/** A small least-recently-used map (Map keeps insertion order; re-inserting marks as recent). */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    dropOldest(this.entries, this.capacity);
  }

  get size(): number {
    return this.entries.size;
  }
}
