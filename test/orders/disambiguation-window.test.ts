import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import type { App } from '../../src/http/schemas.js';
import { disambiguateAmount } from '../../src/modules/orders/orders-rules.js';
import { firstFreeRubAmount } from '../../src/modules/orders/rub-amounts.js';
import { startTestApp, type TestApp, testConfig } from '../helpers/app.js';
import { pgliteSnapshot, testDatabaseUrl } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';

/**
 * Bases of this file: 200,000,000 and up in steps of 10,000 (windows of at most 1000 each side), far
 * from every other file's amounts, so the global RUB disambiguation never meets theirs.
 */
const used = new Set<number>();
function base(): number {
  for (;;) {
    const x = 200_000_000 + randomInt(0, 100_000) * 10_000;
    if (!used.has(x)) {
      used.add(x);
      return x;
    }
  }
}

// docs/decisions.md section 15: the disambiguation window is capped and searched in one statement.
describe('the disambiguation window (docs/decisions.md sections 7 and 15)', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    for (let i = 0; i < 3; i++) await addRequisite(t.app, { kind: 'phone' });
  });
  after(async () => t.close());

  it('amountUp or amountDown above MAX_AMOUNT_DEVIATION (1000) is 400 naming the field; 1000 is taken', async () => {
    for (const field of ['amountUp', 'amountDown']) {
      const res = await createOrder(t.app, merchant, { amount: base(), [field]: 1001 });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual([res.json().message, res.json().details?.[0]?.field], ['VALIDATION_ERROR', field]);
    }
    const ok = await createOrder(t.app, merchant, { amount: base(), amountUp: 1000, amountDown: 1000 });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('a merchant default above the cap is refused at create and at change, naming the field', async () => {
    const created = await adminRaw(t.app, 'POST', '/admin/merchants', {
      merchant_id: `m_cap_${randomInt(1e9)}`,
      default_amount_up: 5000,
    });
    assert.equal(created.statusCode, 400, created.body);
    assert.equal(created.json().details?.[0]?.field, 'default_amount_up');
    const changed = await adminRaw(t.app, 'PATCH', `/admin/merchants/${merchant.id}`, {
      default_amount_down: 1001,
    });
    assert.equal(changed.statusCode, 400, changed.body);
    assert.equal(changed.json().details?.[0]?.field, 'default_amount_down');
    await admin(t.app, 'PATCH', `/admin/merchants/${merchant.id}`, { default_amount_down: 0 });
  });

  it('the free value comes from one statement equal to the rule (disambiguateAmount) for any held set', async () => {
    const x = base();
    // Hold a random set of values around x: orders without deviation keep their amount.
    const held = new Set<string>();
    for (let i = 0; i < 25; i++) {
      const v = x + randomInt(-12, 13);
      const res = await createOrder(t.app, merchant, { amount: v, amountUp: 0, amountDown: 0 });
      assert.equal(res.statusCode, 200, res.body);
      held.add(String(v));
    }
    const now = new Date();
    for (let up = 0; up <= 14; up += 2) {
      for (let down = 0; down <= 14; down += 3) {
        const deviation = { up, down };
        const expected = disambiguateAmount(x, deviation, held);
        assert.equal(await firstFreeRubAmount(t.database.db, x, deviation, now), expected, `${up}/${down}`);
      }
    }
  });

  it('all values held: the original amount (rule 5)', async () => {
    const x = base();
    for (const v of [x - 1, x, x + 1]) await createOrder(t.app, merchant, { amount: v });
    assert.equal(await firstFreeRubAmount(t.database.db, x, { up: 1, down: 1 }, new Date()), x);
  });
});

describe('the statements of a shifting createOrder do not depend on the window size', () => {
  let database: Database;
  let app: App;
  const statements: string[] = [];
  let counting = false;

  before(async () => {
    // On PGlite a second in-memory database, from the run's migrated dump (not migrated anew).
    database = await openDatabase({
      databaseUrl: testDatabaseUrl(),
      pgliteSnapshot: pgliteSnapshot(),
      poolSize: 5,
      logQuery: (q) => {
        if (counting) statements.push(q);
      },
    });
    app = (await buildApp({ config: testConfig(), database })).app;
    await app.ready();
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  it('window 1 and window 1000, each with the first 200 values held: the same statements', async () => {
    const merchant = await createMerchant(app);
    await addRequisite(app, { kind: 'phone' });
    const counts: number[] = [];
    for (const reach of [1, 1000]) {
      // Twice each, keeping the fewer: a background statement of the app (a cache refresh) may land
      // inside one measured call; it never lands in both.
      let fewest = Number.POSITIVE_INFINITY;
      for (let attempt = 0; attempt < 2; attempt++) {
        const x = base();
        for (let v = x - 100; v <= x + 100; v++) {
          assert.equal((await createOrder(app, merchant, { amount: v })).statusCode, 200);
        }
        statements.length = 0;
        counting = true;
        const res = await createOrder(app, merchant, { amount: x, amountUp: reach, amountDown: reach });
        counting = false;
        assert.equal(res.statusCode, 200, res.body);
        const payable = Number(res.json().payment_details.amount);
        if (reach === 1) assert.equal(payable, x, 'all of x-1..x+1 held: the original');
        else assert.equal(payable, x + 101, 'the first free value past the held block');
        fewest = Math.min(fewest, statements.length);
      }
      counts.push(fewest);
    }
    assert.equal(counts[0], counts[1], `statements: ${counts.join(' vs ')}`);
    assert.ok((counts[0] ?? 0) <= 8, `a handful of statements, got ${counts[0]}`);
  });
});
