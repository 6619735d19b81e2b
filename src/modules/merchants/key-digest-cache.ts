/**
 * A per-process cache of what an API key digest names (docs/decisions.md section 4: every process
 * drops it on the cache channel's NOTIFY, and an entry lives `ttlMs` at most, so a rotated or revoked
 * key stops working everywhere at once, or within `ttlMs` should a notification be lost).
 *
 * Concurrent misses of one digest share one read: when an entry expires under load, every request in
 * flight would otherwise read the same row at once. A read that was under way when `clear` ran
 * answers its own callers but is not kept (it may have seen the key before the change).
 *
 * `read` answers the value or undefined (an unknown key, cached too); its errors reach the callers
 * of that read and nothing is cached. `onFound(digest, nowMs)` runs after each read that found a value.
 */
export function keyDigestCache<T>(deps: {
  read: (keyDigest: string) => Promise<T | undefined>;
  onFound?: (keyDigest: string, nowMs: number) => void;
  now: () => number;
  /** How long an entry is answered without reading again, milliseconds. */
  ttlMs: number;
  /** Entries kept at most; the cache is emptied when full (keys are few; digests of bad keys are not). */
  maxEntries?: number;
}) {
  const maxEntries = deps.maxEntries ?? 10_000;
  const cache = new Map<string, { value: T | undefined; until: number }>();
  const reading = new Map<string, Promise<T | undefined>>();
  /** Bumped by clear(): a read started before it is not kept. */
  let generation = 0;

  async function read(keyDigest: string, now: number): Promise<T | undefined> {
    const started = generation;
    try {
      const value = await deps.read(keyDigest);
      if (started === generation) {
        if (cache.size >= maxEntries) cache.clear();
        cache.set(keyDigest, { value, until: now + deps.ttlMs });
      }
      if (value !== undefined) deps.onFound?.(keyDigest, now);
      return value;
    } finally {
      if (started === generation) reading.delete(keyDigest);
    }
  }

  return {
    /** The value of `keyDigest`: cached, the read under way, or a new read. */
    find(keyDigest: string): Promise<T | undefined> {
      const now = deps.now();
      const hit = cache.get(keyDigest);
      if (hit && hit.until > now) return Promise.resolve(hit.value);
      let pending = reading.get(keyDigest);
      if (!pending) {
        pending = read(keyDigest, now);
        reading.set(keyDigest, pending);
      }
      return pending;
    },
    /** Forgets every entry and every read under way (a change was notified). */
    clear(): void {
      generation++;
      cache.clear();
      reading.clear();
    },
  };
}
