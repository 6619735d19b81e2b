import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyDigestCache } from './key-digest-cache.js';

/** A read that resolves when told, counting how often it ran. */
function gatedReads(value: string | undefined) {
  const gates: Array<() => void> = [];
  let reads = 0;
  return {
    read: async (_digest: string) => {
      reads++;
      await new Promise<void>((resolve) => gates.push(resolve));
      return value;
    },
    open: () => {
      for (const g of gates.splice(0)) g();
    },
    count: () => reads,
  };
}

describe('key digest cache', () => {
  it('concurrent misses of one digest share one read, and its answer', async () => {
    const reads = gatedReads('merchant-a');
    const cache = keyDigestCache({ read: reads.read, now: () => 0, ttlMs: 1000 });
    const answers = Array.from({ length: 64 }, () => cache.find('d1'));
    reads.open();
    assert.deepEqual(new Set(await Promise.all(answers)), new Set(['merchant-a']));
    assert.equal(reads.count(), 1);
    assert.equal(await cache.find('d1'), 'merchant-a');
    assert.equal(reads.count(), 1, 'answered from the cache');
  });

  it('reads again once the entry is older than ttlMs', async () => {
    let now = 0;
    let reads = 0;
    const cache = keyDigestCache({ read: async () => `v${++reads}`, now: () => now, ttlMs: 1000 });
    assert.equal(await cache.find('d1'), 'v1');
    now = 999;
    assert.equal(await cache.find('d1'), 'v1');
    now = 1000;
    assert.equal(await cache.find('d1'), 'v2');
  });

  it('a read under way when clear() runs answers its callers but is not kept', async () => {
    const reads = gatedReads('before-rotation');
    const cache = keyDigestCache({ read: reads.read, now: () => 0, ttlMs: 60_000 });
    const early = cache.find('d1');
    cache.clear();
    const late = cache.find('d1');
    assert.equal(reads.count(), 2, 'a find after clear() does not join the earlier read');
    reads.open();
    assert.equal(await early, 'before-rotation');
    assert.equal(await late, 'before-rotation');
    // Only the read started after clear() was kept.
    assert.equal(await cache.find('d1'), 'before-rotation');
    assert.equal(reads.count(), 2);
  });

  it('caches an unknown key too, and tells onFound only of found ones', async () => {
    const found: string[] = [];
    const cache = keyDigestCache({
      read: async (d) => (d === 'known' ? 'm' : undefined),
      onFound: (d) => found.push(d),
      now: () => 0,
      ttlMs: 1000,
    });
    assert.equal(await cache.find('unknown'), undefined);
    assert.equal(await cache.find('known'), 'm');
    assert.deepEqual(found, ['known']);
  });

  it('a failed read reaches its callers, is not cached, and the next find reads again', async () => {
    let fail = true;
    const cache = keyDigestCache({
      read: async () => {
        if (fail) throw new Error('connection lost');
        return 'm';
      },
      now: () => 0,
      ttlMs: 1000,
    });
    await assert.rejects(Promise.all([cache.find('d'), cache.find('d')]), /connection lost/);
    fail = false;
    assert.equal(await cache.find('d'), 'm');
  });
});
