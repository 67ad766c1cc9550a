/**
 * Keeps an insertion-ordered Map or Set to at most `limit` entries, dropping the oldest first. Once
 * over the limit it drops the oldest tenth in one pass: dropping one entry at a time through a fresh
 * iterator makes V8 scan every slot emptied since its table was last rebuilt, ~5 µs a call at 10,000
 * entries against ~0.2 µs (bench/RESULTS.md, "Issue 14, sixth session"). Below ten entries it drops
 * exactly the overflow.
 */
export function dropOldest(collection: Map<unknown, unknown> | Set<unknown>, limit: number): void {
  if (collection.size <= limit) return;
  let drop = collection.size - limit + Math.floor(limit / 10);
  for (const key of collection.keys()) {
    collection.delete(key);
    if (--drop <= 0) return;
  }
}
