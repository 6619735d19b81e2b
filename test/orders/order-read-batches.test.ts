// Orders read in batches (docs/decisions.md "Orders read in batches"): lookups that queue for the
// pool's connections share one statement. For generated sets of lookups of every kind (internal
// ids, external ids of two merchants in both modes, an external id equal to another merchant's
// internal id, unknown ids), each lookup made together with the others answers what it answers
// alone, and the lookups made together take one statement per 16 of a kind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import type { App } from '../../src/http/schemas.js';
import { AppError } from '../../src/lib/errors.js';
import type { MerchantRow } from '../../src/modules/merchants/index.js';
import { orderReads, READ_BATCH_MAX } from '../../src/modules/orders/order-reads.js';
import { insertOrder } from '../../src/modules/orders/orders-repository.js';
import { testConfig } from '../helpers/app.js';
import {
  closeTestDatabase,
  holdOrdersLock,
  isolateDatabase,
  onPostgres,
  pgliteSnapshot,
  testDatabase,
  testDatabaseUrl,
} from '../helpers/database.js';
import { createMerchant, merchantRequest, type TestMerchant } from '../helpers/merchant-client.js';
import { fiatPayinDraft } from '../helpers/order-drafts.js';

/** A stored order as the lookups match it. */
interface Stored {
  id: string;
  merchantId: string;
  externalId: string;
  test: boolean;
}

type Lookup =
  | { by: 'id'; id: string }
  | { by: 'external'; merchant: number; externalId: string; test: boolean };

/** What a lookup answers, by the rules alone: the stored order it names, or none. */
function expected(stored: Stored[], merchants: string[], l: Lookup): string | undefined {
  if (l.by === 'id') return stored.find((o) => o.id === l.id)?.id;
  return stored.find(
    (o) => o.merchantId === merchants[l.merchant] && o.externalId === l.externalId && o.test === l.test,
  )?.id;
}

let dropDatabase: () => Promise<void>;
/** Statements run through the database below, as drizzle reports them. */
const statements: string[] = [];
let database: Database;
let app: App;

before(async () => {
  dropDatabase = await isolateDatabase('order_read_batches');
  // One connection, so that every lookup made while one runs queues for the next statement.
  database = await openDatabase({
    databaseUrl: testDatabaseUrl(),
    poolSize: 1,
    acquireTimeoutMs: 30_000,
    pgliteSnapshot: pgliteSnapshot(),
    logQuery: (query) => statements.push(query),
  });
  app = (await buildApp({ config: testConfig(), database })).app;
  await app.ready();
});
after(async () => {
  await app.close();
  await database.close();
  await closeTestDatabase();
  await dropDatabase();
});

/** Read statements of the lookups among `from`: over arrays of internal ids or of external ids. */
const readStatements = (from: string[]) =>
  from.filter((q) => q.includes('= ANY(') || q.includes('FROM unnest(')).length;

/** Stores a pending sim order of `merchantId` in one mode, with `orderId` as its order id (none: its internal id). */
async function store(
  merchantId: string,
  test: boolean,
  orderId: string | null,
  amount = 700,
): Promise<Stored> {
  const merchant = { id: merchantId, test, orderTtlSeconds: 900, cryptoOrderTtlSeconds: 3600 } as MerchantRow;
  const { draft } = fiatPayinDraft(merchant, {
    type: 'sim',
    currency: 'RUB',
    amount,
    now: new Date(),
    orderId,
  });
  const row = await insertOrder(database.db, {
    ...draft,
    pdAddress: '79990000000',
    pdBank: 'Sberbank',
    pdHolderName: 'Reads',
  });
  return { id: row.id, merchantId: row.merchantId, externalId: row.externalId, test: row.test };
}

describe('orders read in batches', () => {
  const stored: Stored[] = [];
  const merchants: string[] = [];

  before(async () => {
    for (let m = 0; m < 2; m++) {
      const made = await createMerchant(app);
      merchants.push(made.id);
      // The same order ids in both modes and at both merchants, and one order without an order id.
      for (const test of [false, true])
        for (const orderId of ['x', 'y', null]) stored.push(await store(made.id, test, orderId));
    }
    // The second merchant's order id that is the first merchant's internal id (the contract allows any string).
    stored.push(await store(merchants[1] as string, false, (stored[0] as Stored).id));
  });

  it('each lookup made together answers what the rules say, one statement per 16 of a kind', async () => {
    const reads = orderReads(database.db, { connections: 1, maxWaitMs: 30_000 }).info;
    const unknownId = 'lux01990000-0000-7000-8000-000000000000';
    const ids = [...stored.map((o) => o.id), unknownId];
    const externalIds = ['x', 'y', 'z', ...stored.map((o) => o.id)];
    const lookup: fc.Arbitrary<Lookup> = fc.oneof(
      fc.record({ by: fc.constant('id' as const), id: fc.constantFrom(...ids) }),
      fc.record({
        by: fc.constant('external' as const),
        merchant: fc.constantFrom(0, 1),
        externalId: fc.constantFrom(...externalIds),
        test: fc.boolean(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(lookup, { minLength: 1, maxLength: 40 }), async (lookups) => {
        const ask = (l: Lookup) =>
          l.by === 'id'
            ? reads.byId(l.id)
            : reads.byExternalId(merchants[l.merchant] as string, l.externalId, l.test);
        const seen = statements.length;
        const together = await Promise.all(lookups.map(ask));
        const made = readStatements(statements.slice(seen));
        lookups.forEach((l, i) => {
          const got = together[i];
          assert.equal(got?.id, expected(stored, merchants, l), `lookup ${i}: ${JSON.stringify(l)}`);
          // The answer is the whole row of that order, not another's columns.
          if (got) assert.equal(stored.find((o) => o.id === got.id)?.externalId, got.externalId);
        });
        const ofKind = (by: Lookup['by']) => lookups.filter((l) => l.by === by).length;
        assert.equal(
          made,
          Math.ceil(ofKind('id') / READ_BATCH_MAX) + Math.ceil(ofKind('external') / READ_BATCH_MAX),
          'lookups made together share statements',
        );
      }),
      { numRuns: 40 },
    );
  });

  it('a lookup made alone takes a statement of its own, at once', async () => {
    const reads = orderReads(database.db, { connections: 1, maxWaitMs: 30_000 }).info;
    const seen = statements.length;
    for (const o of stored) assert.equal((await reads.byId(o.id))?.id, o.id);
    assert.equal(readStatements(statements.slice(seen)), stored.length);
  });

  it('GET /merchant/order answers each of many parallel requests with its own order', async () => {
    const a: TestMerchant = await createMerchant(app);
    const b: TestMerchant = await createMerchant(app);
    const made: Array<{ owner: TestMerchant; id: string; orderId: string }> = [];
    for (const owner of [a, b]) {
      // Both merchants use the same order ids.
      for (let i = 0; i < 12; i++)
        made.push({ owner, id: (await store(owner.id, false, `p${i}`, 700 + i)).id, orderId: `p${i}` });
    }
    const seen = statements.length;
    const answers = await Promise.all(
      made.flatMap((o) => [
        merchantRequest(app, o.owner, `/merchant/order/${o.id}`),
        merchantRequest(app, o.owner, `/merchant/order/${o.orderId}`),
      ]),
    );
    answers.forEach((res, i) => {
      const o = made[Math.floor(i / 2)] as (typeof made)[number];
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        [res.json().id, res.json().order_id],
        [o.id, o.orderId],
        `request ${i}: its own order`,
      );
    });
    assert.ok(readStatements(statements.slice(seen)) < answers.length, 'parallel reads shared statements');
  });

  it('a lookup that waits longer than a connection would for its statement fails with SERVICE_UNAVAILABLE', {
    skip:
      !onPostgres() &&
      'PostgreSQL only (PGlite runs one statement at a time: the lock holder would be the one waiting)',
  }, async () => {
    const reads = orderReads(database.db, { connections: 1, maxWaitMs: 300 }).info;
    const shared = (await testDatabase()).db;
    // Another transaction holds the orders table against reads: the running statement waits for it.
    const lock = await holdOrdersLock(shared, 'ACCESS EXCLUSIVE');
    const first = stored[0] as Stored;
    const running = reads.byId(first.id);
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = reads.byId(first.id);
    await assert.rejects(waiting, (err) => err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE');
    await lock.release();
    assert.equal(
      (await running)?.id,
      first.id,
      'the statement that was running completes once the lock is gone',
    );
  });
});
