import { describe, expect, it } from 'vitest';
import { dropOldest } from '../../src/core/bounded-collections.js';
import { LruCache } from '../../src/shell/lru-cache.js';

describe('dropOldest', () => {
  it('below ten entries drops exactly the overflow, oldest first', () => {
    const set = new Set(['a', 'b', 'c', 'd']);
    dropOldest(set, 3);
    expect([...set]).toEqual(['b', 'c', 'd']);
    dropOldest(set, 3);
    expect([...set]).toEqual(['b', 'c', 'd']);
  });

  it('keeps a Map or a Set to the newest entries in insertion order, between nine tenths of the limit and the limit', () => {
    for (const collection of [new Set<number>(), new Map<number, number>()]) {
      for (let i = 0; i < 25_000; i++) {
        if (collection instanceof Set) collection.add(i);
        else collection.set(i, i);
        dropOldest(collection, 10_000);
        expect(collection.size).toBeLessThanOrEqual(10_000);
        const keys = [...collection.keys()];
        if (i % 997 === 0) expect(keys).toEqual(Array.from({ length: keys.length }, (_, k) => i - keys.length + 1 + k));
      }
      expect(collection.size).toBeGreaterThanOrEqual(9_000);
    }
  });
});

describe('LruCache', () => {
  it('forgets the least recently used first: a read makes an entry recent', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });
});
