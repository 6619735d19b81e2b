// Reliability invariant: 200 concurrent createOrder for one RUB amount with a
// deviation of 300 each way never give two pending orders the same payable amount
// (docs/decisions.md section 7: "It holds under concurrent requests").
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { rowsOf } from '../../src/db/database.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { needsPostgres } from '../helpers/database.js';
import {
  addRequisite,
  adminRaw,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';

/**
 * Base amounts of this file: 60,000,000 <= base < 60,400,000 in steps of 1000 (other files use other
 * bands), so that with a deviation of 300 no order of another file can sit in the range.
 */
const BAND_LOW = 60_000_000;
const BAND_STEPS = 400;
const DEVIATION = 300;
const N = 200;

interface Answer {
  id: string;
  payment_id: string;
  amountAfterFee: number;
  payment_details: { amount: string };
}

/** The candidates of docs/decisions.md section 7 in the order they are tried: x, x+1, x-1, x+2, x-2, ... */
function firstCandidates(x: number, count: number): number[] {
  const out = [x];
  for (let step = 1; out.length < count; step++) {
    out.push(x + step);
    if (out.length < count) out.push(x - step);
  }
  return out;
}

const numeric = (a: number, b: number) => a - b;

describe('200 concurrent createOrder for one RUB amount (docs/decisions.md section 7)', {
  skip: needsPostgres('PGlite runs one query at a time'),
}, () => {
  let t: TestApp;
  let merchant: TestMerchant;
  const usedBases = new Set<number>();
  const baseAmount = (): number => {
    for (;;) {
      const base = BAND_LOW + randomInt(0, BAND_STEPS) * 1000;
      if (!usedBases.has(base)) {
        usedBases.add(base);
        return base;
      }
    }
  };

  /** Pending RUB fiat PAYIN orders (any merchant) whose payable amounts repeat within [low, high]. */
  const duplicatesIn = async (low: number, high: number) =>
    rowsOf<{ amount: string; n: number }>(
      await t.database.db.execute(sql`
        SELECT payable_amount::text AS amount, count(*)::int AS n FROM orders
        WHERE status = 'pending' AND method = 'fiat' AND direction = 'PAYIN' AND currency = 'RUB'
          AND payable_amount BETWEEN ${low} AND ${high}
        GROUP BY payable_amount HAVING count(*) > 1`),
    );

  const ordersOfMerchant = async () =>
    rowsOf<{ id: string; amount: string; payable: string; status: string; fee: string; after_fee: string }>(
      await t.database.db.execute(sql`
        SELECT id, amount::text AS amount, payable_amount::text AS payable, status, fee::text AS fee,
               amount_after_fee::text AS after_fee
        FROM orders WHERE merchant_id = ${merchant.id}`),
    );

  const answersOf = (results: LightMyRequestResponse[]): Answer[] => {
    const failed = results.filter((r) => r.statusCode !== 200);
    assert.equal(
      failed.length,
      0,
      `${failed.length} of ${results.length} failed: ${failed
        .slice(0, 5)
        .map((r) => `${r.statusCode} ${r.body}`)
        .join(' | ')}`,
    );
    return results.map((r) => r.json() as Answer);
  };

  const create = (base: number, tag: string) =>
    createOrder(t.app, merchant, {
      amount: base,
      type: 'sim',
      amountUp: DEVIATION,
      amountDown: DEVIATION,
      order_id: `dis200-${tag}-${randomUUID()}`,
    });

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, { payin_fee_percent: 2.5 });
    // Enough requisites without limits: selection must never be what refuses an order here.
    for (let i = 0; i < 10; i++) await addRequisite(t.app, { kind: 'phone' });
  });

  after(async () => {
    // Free this file's amounts and the requisites' slots for the other files of the run.
    const pending = t ? (await ordersOfMerchant()).filter((o) => o.status === 'pending') : [];
    for (let i = 0; i < pending.length; i += 50) {
      await Promise.all(
        pending
          .slice(i, i + 50)
          .map((o) => adminRaw(t.app, 'POST', `/admin/orders/${o.id}/cancel`, { reason: 'test cleanup' })),
      );
    }
    await t?.close();
  });

  it('200 at once: 200 distinct payable amounts, exactly the first 200 candidates', {
    timeout: 60_000,
  }, async (ctx) => {
    const base = baseAmount();
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: N }, (_, i) => create(base, `a${i}`)));
    const ms = Math.round(performance.now() - t0);
    ctx.diagnostic(`${N} concurrent createOrder (base ${base}, +-${DEVIATION}) answered in ${ms} ms`);

    const answers = answersOf(results);
    const amounts = answers.map((a) => Number(a.payment_details.amount));
    for (const a of amounts) {
      assert.ok(
        Number.isInteger(a) && a >= base - DEVIATION && a <= base + DEVIATION,
        `payable ${a} outside [${base - DEVIATION}, ${base + DEVIATION}]`,
      );
    }
    const counts = new Map<number, number>();
    for (const a of amounts) counts.set(a, (counts.get(a) ?? 0) + 1);
    const repeated = [...counts].filter(([, n]) => n > 1);
    assert.deepEqual(
      repeated,
      [],
      `payable amounts given to more than one order: ${JSON.stringify(repeated)}`,
    );
    // Serialised choices over an empty range take the candidates in order: x, x+1, x-1, ... x+100.
    assert.deepEqual(
      [...amounts].sort(numeric),
      firstCandidates(base, N).sort(numeric),
      'the 200 amounts are not the first 200 candidates (a value skipped or a foreign order in the band)',
    );

    // The database agrees with the answers and holds no repeated pending amount in the whole range.
    const rows = new Map((await ordersOfMerchant()).map((o) => [o.id, o]));
    for (const a of answers) {
      const row = rows.get(a.id);
      assert.ok(row, `order ${a.id} not stored`);
      assert.equal(row.status, 'pending', JSON.stringify(row));
      assert.equal(Number(row.amount), base, `requested amount kept: ${JSON.stringify(row)}`);
      assert.equal(Number(row.payable), Number(a.payment_details.amount), JSON.stringify(row));
      // Fee on the payable amount (2.5 %, half up), as docs/decisions.md section 6.
      const fee = Math.round(Number(row.payable) * 2.5) / 100;
      assert.equal(Number(row.fee), fee, JSON.stringify(row));
      assert.equal(a.amountAfterFee, Number(row.after_fee), JSON.stringify(a));
    }
    assert.deepEqual(await duplicatesIn(base - DEVIATION, base + DEVIATION), [], 'repeated pending amounts');
  });

  it('100 cancels racing 100 creates on a full range: pending amounts stay distinct', {
    timeout: 60_000,
  }, async (ctx) => {
    const base = baseAmount();
    const first = answersOf(await Promise.all(Array.from({ length: N }, (_, i) => create(base, `b${i}`))));
    const shuffled = [...first].sort(() => Math.random() - 0.5);
    const cancelled = shuffled.slice(0, N / 2);
    const t0 = performance.now();
    const mixed = await Promise.all([
      ...cancelled.map((o) => adminRaw(t.app, 'POST', `/admin/orders/${o.id}/cancel`, { reason: 'race' })),
      ...Array.from({ length: N / 2 }, (_, i) => create(base, `c${i}`)),
    ]);
    ctx.diagnostic(`100 cancels + 100 creates answered in ${Math.round(performance.now() - t0)} ms`);
    for (const r of mixed) assert.equal(r.statusCode, 200, r.body);
    const fresh = mixed.slice(N / 2).map((r) => r.json() as Answer);

    const kept = shuffled.slice(N / 2).map((o) => Number(o.payment_details.amount));
    const added = fresh.map((o) => Number(o.payment_details.amount));
    const pending = [...kept, ...added];
    assert.equal(new Set(pending).size, N, `repeated among pending: ${pending.sort(numeric).join(',')}`);
    for (const a of added) {
      assert.ok(a >= base - DEVIATION && a <= base + DEVIATION, `payable ${a} outside the range`);
    }
    const stored = (await ordersOfMerchant()).filter(
      (o) => o.status === 'pending' && Number(o.amount) === base,
    );
    assert.equal(stored.length, N, `pending orders for base ${base}: ${stored.length}`);
    assert.deepEqual(
      stored.map((o) => Number(o.payable)).sort(numeric),
      [...pending].sort(numeric),
      'stored pending amounts differ from the answers',
    );
    assert.deepEqual(await duplicatesIn(base - DEVIATION, base + DEVIATION), [], 'repeated pending amounts');
  });
});
