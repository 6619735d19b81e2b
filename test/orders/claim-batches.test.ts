// Orders claimed in batches (docs/decisions.md "Orders claimed in batches"): orders that queue for
// the claim's connections share one statement. For generated pools and batches of orders of mixed
// amounts, the statement gives each order what the rules say (a model computed here without the
// database), the orders it cannot serve take the transaction and get what the rules say there,
// and one duplicate order in a batch fails alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildApp } from '../../src/app.js';
import { requisites } from '../../src/db/tables/requisites.js';
import type { App } from '../../src/http/schemas.js';
import { AppError } from '../../src/lib/errors.js';
import { money } from '../../src/lib/money.js';
import { requisiteNeedFor } from '../../src/modules/catalog/index.js';
import type { MerchantRow } from '../../src/modules/merchants/index.js';
import { DuplicateOrderError } from '../../src/modules/orders/orders-repository.js';
import { CLAIM_BATCH_MAX, createClaim } from '../../src/modules/orders/requisite-claim.js';
import {
  insertAssignedOrder,
  type PickInput,
  requisiteColumns,
  takeRequisite,
} from '../../src/modules/orders/requisite-take.js';
import { testConfig } from '../helpers/app.js';
import {
  closeTestDatabase,
  holdOrdersLock,
  isolateDatabase,
  onPostgres,
  testDatabase,
} from '../helpers/database.js';
import { createMerchant } from '../helpers/merchant-client.js';
import { fiatPayinDraft } from '../helpers/order-drafts.js';

interface PoolEntry {
  state: 'ready' | 'disabled' | 'paused';
  min: number | null;
  max: number | null;
  maxActive: number | null;
  /** Orders already on it before the batch (its place in the least-recently-used order). */
  earlier: number;
}

const entry = fc.record<PoolEntry>({
  state: fc.constantFrom('ready', 'ready', 'ready', 'ready', 'disabled', 'paused'),
  min: fc.constantFrom(null, null, 100, 500),
  max: fc.constantFrom(null, null, 1000, 5000),
  maxActive: fc.constantFrom(null, null, null, 1, 3),
  earlier: fc.nat(3),
});
const amount = fc.constantFrom(50, 300, 700, 3000, 8000);

/** The pool's state in the model: per requisite, its latest order's number and its pending orders. */
interface ModelState {
  last: number[];
  active: number[];
  seq: number;
}

const fitsAmount = (r: PoolEntry, a: number) =>
  (r.min === null || a >= r.min) && (r.max === null || a <= r.max);
const usable = (r: PoolEntry, s: ModelState, i: number) =>
  r.state === 'ready' && (r.maxActive === null || (s.active[i] ?? 0) < r.maxActive);
const byRecency = (s: ModelState) => (a: number, b: number) => (s.last[a] ?? 0) - (s.last[b] ?? 0) || a - b;

/**
 * What the batch statement gives each order (docs/decisions.md "Orders claimed in batches"),
 * without the database: the candidates are the batch-size least recently assigned usable
 * requisites that fit some amount of the batch; one order after another, the first candidate not
 * yet taken that fits its amount, unless that one has limits (then nothing: the transaction).
 * Updates `s` for what is taken; answers each order's requisite index or -1.
 */
function modelBatch(pool: PoolEntry[], s: ModelState, amounts: number[]): number[] {
  const low = Math.min(...amounts);
  const high = Math.max(...amounts);
  const candidates = pool
    .map((_, i) => i)
    .filter((i) => {
      const r = pool[i] as PoolEntry;
      return usable(r, s, i) && (r.min === null || r.min <= high) && (r.max === null || r.max >= low);
    })
    .sort(byRecency(s))
    .slice(0, amounts.length);
  const taken = new Set<number>();
  return amounts.map((a) => {
    const first = candidates.find((i) => !taken.has(i) && fitsAmount(pool[i] as PoolEntry, a));
    if (first === undefined || (pool[first] as PoolEntry).maxActive !== null) return -1;
    taken.add(first);
    s.last[first] = ++s.seq;
    s.active[first] = (s.active[first] ?? 0) + 1;
    return first;
  });
}

/** What the transaction gives one order: the least recently assigned usable requisite that fits. */
function modelTransaction(pool: PoolEntry[], s: ModelState, a: number): number {
  const best = pool
    .map((_, i) => i)
    .filter((i) => usable(pool[i] as PoolEntry, s, i) && fitsAmount(pool[i] as PoolEntry, a))
    .sort(byRecency(s))[0];
  if (best === undefined) return -1;
  s.last[best] = ++s.seq;
  s.active[best] = (s.active[best] ?? 0) + 1;
  return best;
}

let dropDatabase: () => Promise<void>;
before(async () => {
  dropDatabase = await isolateDatabase('claim_batches');
});
after(async () => {
  await closeTestDatabase();
  await dropDatabase();
});

describe('orders claimed in batches', () => {
  let app: App;
  let merchant: MerchantRow;
  let run = 0;

  before(async () => {
    app = (await buildApp({ config: testConfig(), database: await testDatabase() })).app;
    await app.ready();
    const m = await createMerchant(app);
    merchant = { id: m.id, orderTtlSeconds: 900, cryptoOrderTtlSeconds: 3600 } as MerchantRow;
  });
  after(async () => {
    await app.close();
  });

  const need = requisiteNeedFor('sim');
  assert.ok(need);
  const draftFor = (currency: string, amount: number, now: Date, orderId: string | null = null) =>
    fiatPayinDraft(merchant, { type: 'sim', currency, amount, now, orderId }).draft;
  /** `count` plain requisites (no limits, no amount bounds) in `currency`, addresses from `prefix`. */
  const addPool = async (currency: string, count: number, prefix: string) => {
    const db = (await testDatabase()).db;
    for (let i = 0; i < count; i++) {
      await db.insert(requisites).values({
        kind: 'phone',
        bank: 'Sberbank',
        address: `${prefix}${i}`,
        holderName: 'Pool',
        currency,
      });
    }
  };

  it('for generated pools and batches of mixed amounts: the statement, then the transaction, pick what the rules say', async () => {
    const db = (await testDatabase()).db;
    // One connection: orders submitted in the same turn go in one statement (up to CLAIM_BATCH_MAX).
    const claim = createClaim(db, undefined, { connections: 1 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { minLength: 1, maxLength: 8 }),
        fc.array(amount, { minLength: 1, maxLength: CLAIM_BATCH_MAX }),
        async (pool, amounts) => {
          run++;
          const currency = `B${run}`;
          const now = new Date();
          const ids: string[] = [];
          for (const [i, r] of pool.entries()) {
            const id = `00000000-0000-4000-8000-${String(run).padStart(8, '0')}${String(i).padStart(4, '0')}`;
            await db.insert(requisites).values({
              id,
              kind: 'phone',
              bank: 'Sberbank',
              bankCode: 'sber',
              enabled: r.state !== 'disabled',
              pausedReason: r.state === 'paused' ? 'block' : null,
              address: `7900${String(run).padStart(5, '0')}${String(i).padStart(2, '0')}`,
              holderName: 'Pool',
              currency,
              minAmount: r.min === null ? null : String(r.min),
              maxAmount: r.max === null ? null : String(r.max),
              maxActiveOrders: r.maxActive,
            });
            ids.push(id);
          }
          const model: ModelState = { last: pool.map(() => 0), active: pool.map(() => 0), seq: 0 };
          // Earlier orders, one at a time and each by the rules, give the pool its recency.
          const earlier = pool.flatMap((r, i) => Array.from({ length: r.earlier }, () => i));
          for (const _ of earlier) {
            const expected = modelTransaction(pool, model, 1000);
            const draft = draftFor(currency, 1000, now);
            const got = await db.transaction(async (tx) => {
              const r = await takeRequisite(tx, { need, currency, amount: money(1000), now });
              return r
                ? (await insertAssignedOrder(tx, { ...draft, ...requisiteColumns(r) })).requisiteId
                : null;
            });
            assert.equal(got ? ids.indexOf(got) : -1, expected, 'the earlier orders follow the rules');
          }

          const expectedBatch = modelBatch(pool, model, amounts);
          const drafts = amounts.map((a) => draftFor(currency, a, now));
          const picks: PickInput[] = amounts.map((a) => ({ need, currency, amount: money(a), now }));
          const claimed = await Promise.all(
            drafts.map((d, i) => claim(d, picks[i] as PickInput, { tryLockRub: false })),
          );
          const where = `amounts ${JSON.stringify(amounts)}, pool ${JSON.stringify(pool)}`;
          assert.deepEqual(
            claimed.map((c) => (c?.requisiteId ? ids.indexOf(c.requisiteId) : -1)),
            expectedBatch,
            `the statement against the rules for ${where}`,
          );
          // The orders the statement could not serve take the transaction, in their order.
          for (const [i, c] of claimed.entries()) {
            if (c) continue;
            const a = amounts[i] as number;
            const expected = modelTransaction(pool, model, a);
            const got = await db.transaction(async (tx) => {
              const r = await takeRequisite(tx, picks[i] as PickInput);
              if (!r) return null;
              return (
                await insertAssignedOrder(tx, {
                  ...(drafts[i] as (typeof drafts)[number]),
                  ...requisiteColumns(r),
                })
              ).requisiteId;
            });
            assert.equal(got ? ids.indexOf(got) : -1, expected, `the transaction for order ${i} of ${where}`);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a duplicate order in a batch fails alone; the others are created', async () => {
    const db = (await testDatabase()).db;
    const claim = createClaim(db, undefined, { connections: 1 });
    const currency = 'DUPB';
    const now = new Date();
    await addPool(currency, 4, '790077700');
    const first = await claim(
      draftFor(currency, 700, now, 'dup-1'),
      { need, currency, amount: money(700), now },
      {
        tryLockRub: false,
      },
    );
    assert.ok(first?.requisiteId);
    const orderIds = ['dup-2', 'dup-1', 'dup-3'];
    const answers = await Promise.allSettled(
      orderIds.map((orderId) =>
        claim(
          draftFor(currency, 700, now, orderId),
          { need, currency, amount: money(700), now },
          {
            tryLockRub: false,
          },
        ),
      ),
    );
    assert.equal(answers[0]?.status, 'fulfilled');
    assert.ok(answers[1]?.status === 'rejected' && answers[1].reason instanceof DuplicateOrderError);
    assert.equal(answers[2]?.status, 'fulfilled');
    const made = answers.flatMap((a) => (a.status === 'fulfilled' && a.value ? [a.value] : []));
    assert.deepEqual(
      made.map((o) => o.externalId),
      ['dup-2', 'dup-3'],
    );
    assert.equal(new Set(made.map((o) => o.requisiteId)).size, 2, 'each on a requisite of its own');
  });

  it('an order that waits longer than a connection would for its statement fails with SERVICE_UNAVAILABLE', {
    skip:
      !onPostgres() &&
      'PostgreSQL only (PGlite runs one statement at a time: the lock holder would be the one waiting)',
  }, async () => {
    const db = (await testDatabase()).db;
    const claim = createClaim(db, undefined, { connections: 1, maxWaitMs: 300 });
    const currency = 'WAITB';
    const now = new Date();
    await addPool(currency, 3, '790088800');
    const pick = { need, currency, amount: money(700), now };
    // Another transaction holds the orders table: the running statement waits for it.
    const lock = await holdOrdersLock(db, 'EXCLUSIVE');
    const running = claim(draftFor(currency, 700, now), pick, { tryLockRub: false });
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = claim(draftFor(currency, 700, now), pick, { tryLockRub: false });
    await assert.rejects(waiting, (err) => err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE');
    await lock.release();
    assert.ok((await running)?.requisiteId, 'the statement that was running completes once the lock is gone');
  });
});
