import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBatches } from './statement-batches.js';

/** A run that records its batches and answers when `release` is called (or at once). */
function recorder(options: { hold?: boolean } = {}) {
  const batches: Array<{ key: string; items: number[] }> = [];
  const pending: Array<() => void> = [];
  let running = 0;
  let mostRunning = 0;
  const run = async (key: string, items: number[]) => {
    batches.push({ key, items: [...items] });
    running++;
    mostRunning = Math.max(mostRunning, running);
    if (options.hold) await new Promise<void>((resolve) => pending.push(resolve));
    running--;
    return items.map((i) => i * 10);
  };
  const releaseAll = () => {
    for (const r of pending.splice(0)) r();
  };
  return { run, batches, releaseAll, mostRunning: () => mostRunning };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const waits = { maxWaitMs: 60_000, timeoutError: () => new Error('waited too long') };

describe('claim batches', () => {
  it('runs an item alone when nothing else waits', async () => {
    const r = recorder();
    const batches = createBatches({ run: r.run, maxSize: 8, maxInFlight: 2, ...waits });
    assert.equal(await batches.submit('k', 1), 10);
    assert.equal(await batches.submit('k', 2), 20);
    assert.deepEqual(r.batches, [
      { key: 'k', items: [1] },
      { key: 'k', items: [2] },
    ]);
  });

  it('items that arrive while every slot is busy go together, in order, at most maxSize each', async () => {
    const r = recorder({ hold: true });
    const batches = createBatches({ run: r.run, maxSize: 3, maxInFlight: 1, ...waits });
    const first = batches.submit('k', 0);
    await turn();
    const rest = [1, 2, 3, 4, 5].map((i) => batches.submit('k', i));
    await turn();
    assert.deepEqual(r.batches, [{ key: 'k', items: [0] }], 'one slot: the rest wait');
    r.releaseAll();
    assert.equal(await first, 0);
    await turn();
    assert.deepEqual(r.batches[1], { key: 'k', items: [1, 2, 3] });
    r.releaseAll();
    await turn();
    r.releaseAll();
    assert.deepEqual(await Promise.all(rest), [10, 20, 30, 40, 50]);
    assert.deepEqual(r.batches[2], { key: 'k', items: [4, 5] });
    assert.equal(r.mostRunning(), 1);
  });

  it('never runs more than maxInFlight batches at once', async () => {
    const r = recorder({ hold: true });
    const batches = createBatches({ run: r.run, maxSize: 2, maxInFlight: 3, ...waits });
    const all = Array.from({ length: 20 }, (_, i) => batches.submit(`k${i % 4}`, i));
    for (let i = 0; i < 20 && r.batches.length < 20; i++) {
      await turn();
      r.releaseAll();
    }
    await Promise.all(all);
    assert.ok(r.mostRunning() <= 3, `at most 3 at once, saw ${r.mostRunning()}`);
    assert.ok(r.batches.every((b) => b.items.length <= 2));
  });

  it('keeps keys apart and serves the key of the oldest waiting item first', async () => {
    const r = recorder({ hold: true });
    const batches = createBatches({ run: r.run, maxSize: 8, maxInFlight: 1, ...waits });
    const first = batches.submit('a', 0);
    await turn();
    const later = [batches.submit('b', 1), batches.submit('a', 2), batches.submit('b', 3)];
    r.releaseAll();
    await first;
    await turn();
    assert.deepEqual(r.batches[1], { key: 'b', items: [1, 3] }, "b's item came first");
    r.releaseAll();
    await turn();
    r.releaseAll();
    await Promise.all(later);
    assert.deepEqual(r.batches[2], { key: 'a', items: [2] });
  });

  it('an Error answer rejects that item alone; a failed run rejects its batch, and later batches still run', async () => {
    let failNext = false;
    const batches = createBatches<number, number>({
      maxSize: 8,
      maxInFlight: 1,
      ...waits,
      run: async (_key, items) => {
        if (failNext) {
          failNext = false;
          throw new Error('connection lost');
        }
        return items.map((i) => (i === 2 ? new Error('duplicate') : i));
      },
    });
    const answers = await Promise.allSettled([1, 2, 3].map((i) => batches.submit('k', i)));
    assert.deepEqual(
      answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message)),
      [1, 'duplicate', 3],
    );
    failNext = true;
    const failed = await Promise.allSettled([4, 5].map((i) => batches.submit('k', i)));
    assert.ok(
      failed.every((a) => a.status === 'rejected' && (a.reason as Error).message === 'connection lost'),
    );
    assert.equal(await batches.submit('k', 6), 6);
  });

  it('an item that waits maxWaitMs for its batch is rejected; the running batch and later items are not', async () => {
    const r = recorder({ hold: true });
    const batches = createBatches({
      run: r.run,
      maxSize: 8,
      maxInFlight: 1,
      maxWaitMs: 40,
      timeoutError: () => new Error('waited too long'),
    });
    // The batches' timer does not keep a process alive (a server does): this test's timer does.
    const alive = setInterval(() => undefined, 1000);
    const stuck = batches.submit('k', 1);
    await turn();
    const waiting = batches.submit('k', 2);
    await assert.rejects(waiting, /waited too long/);
    clearInterval(alive);
    assert.deepEqual(r.batches, [{ key: 'k', items: [1] }], 'the waiting item never ran');
    r.releaseAll();
    assert.equal(await stuck, 10);
    const later = batches.submit('k', 3);
    await turn();
    r.releaseAll();
    assert.equal(await later, 30);
  });
});
