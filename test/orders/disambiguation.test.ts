import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { money } from '../../src/lib/money.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { needsPostgres } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

/**
 * Base amounts of this file: 9,000,000 and up in steps of 1000. uniqueAmount() stays below
 * 8,100,000, so orders of other files never sit in these ranges (deviations here are at most 30).
 */
const usedBases = new Set<number>();
function baseAmount(): number {
  for (;;) {
    const base = 9_000_000 + randomInt(0, 50_000) * 1000;
    if (!usedBases.has(base)) {
      usedBases.add(base);
      return base;
    }
  }
}

function payable(res: LightMyRequestResponse): number {
  assert.equal(res.statusCode, 200, res.body);
  return Number(res.json().payment_details.amount);
}

describe('amount disambiguation (docs/api.md rules; docs/decisions.md section 7)', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  const order = (m: TestMerchant, fields: Record<string, unknown>) =>
    createOrder(t.app, m, { type: 'sim', ...fields });

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, { payin_fee_percent: 2 });
    for (let i = 0; i < 5; i++) await addRequisite(t.app, { kind: 'phone' });
  });
  after(() => t.close());

  describe('happy', () => {
    it('same amount: +1, -1, +2, -2, then all taken -> the original', async () => {
      const x = baseAmount();
      const got: number[] = [];
      for (let i = 0; i < 6; i++)
        got.push(payable(await order(merchant, { amount: x, amountUp: 2, amountDown: 2 })));
      assert.deepEqual(got, [x, x + 1, x - 1, x + 2, x - 2, x]);
    });

    it('the shifted order keeps the requested amount and takes its fee from the payable amount', async () => {
      const x = baseAmount();
      payable(await order(merchant, { amount: x, amountUp: 1 }));
      const res = await order(merchant, { amount: x, amountUp: 1 });
      assert.equal(payable(res), x + 1);
      const fee = money(x + 1)
        .times(2)
        .dividedBy(100)
        .toDecimalPlaces(2);
      assert.equal(
        res.json().amountAfterFee,
        money(x + 1)
          .minus(fee)
          .toNumber(),
        res.body,
      );
      const read = await merchantRequest(t.app, merchant, `/merchant/order/${res.json().id}`);
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json().amount, x, read.body);
      assert.equal(read.json().payment_details.amount, String(x + 1), read.body);
    });

    it('asymmetric ranges: down only, up only', async () => {
      const x = baseAmount();
      const down: number[] = [];
      for (let i = 0; i < 4; i++)
        down.push(payable(await order(merchant, { amount: x, amountUp: 0, amountDown: 2 })));
      assert.deepEqual(down, [x, x - 1, x - 2, x]);
      const y = baseAmount();
      const up: number[] = [];
      for (let i = 0; i < 3; i++) up.push(payable(await order(merchant, { amount: y, amountUp: 1 })));
      assert.deepEqual(up, [y, y + 1, y]);
    });

    it('pending orders of other merchants count as taken', async () => {
      const x = baseAmount();
      const other = await createMerchant(t.app);
      assert.equal(payable(await order(other, { amount: x })), x);
      assert.equal(payable(await order(merchant, { amount: x, amountDown: 1 })), x - 1);
    });

    it('both deviations 0 or absent -> the same amount for every order', async () => {
      const x = baseAmount();
      const got = [
        payable(await order(merchant, { amount: x })),
        payable(await order(merchant, { amount: x, amountUp: 0, amountDown: 0 })),
        payable(await order(merchant, { amount: x, amountUp: null, amountDown: null })),
      ];
      assert.deepEqual(got, [x, x, x]);
    });

    it('merchant defaults apply; request values win field by field', async () => {
      const withDefaults = await createMerchant(t.app);
      await admin(t.app, 'PATCH', `/admin/merchants/${withDefaults.id}`, {
        default_amount_up: 3,
        default_amount_down: 0,
      });
      const x = baseAmount();
      assert.equal(payable(await order(withDefaults, { amount: x })), x);
      // Defaults (up 3): x is taken -> x + 1.
      assert.equal(payable(await order(withDefaults, { amount: x })), x + 1);
      // Request up 0 wins over the default 3; request down 1 -> x - 1.
      assert.equal(payable(await order(withDefaults, { amount: x, amountUp: 0, amountDown: 1 })), x - 1);
      // Request up 0 and down 0 disable it although the merchant has defaults.
      assert.equal(payable(await order(withDefaults, { amount: x, amountUp: 0, amountDown: 0 })), x);
      // Request up 5 wins over the default 3: x+1 taken, x+2 free.
      assert.equal(payable(await order(withDefaults, { amount: x, amountUp: 5 })), x + 2);
    });

    it('an amount is free again after its order is cancelled', async () => {
      const x = baseAmount();
      const first = await order(merchant, { amount: x, amountUp: 1 });
      assert.equal(payable(first), x);
      assert.equal(payable(await order(merchant, { amount: x, amountUp: 1 })), x + 1);
      const cancelled = await admin(t.app, 'POST', `/admin/orders/${first.json().id}/cancel`, {
        reason: 'test',
      });
      assert.equal(cancelled.status, 'error', JSON.stringify(cancelled));
      assert.equal(payable(await order(merchant, { amount: x, amountUp: 1 })), x);
      // And x, x+1 are now both held again.
      assert.equal(payable(await order(merchant, { amount: x, amountUp: 1 })), x);
    });

    it('a successful order frees its amount too', async () => {
      const x = baseAmount();
      const first = await order(merchant, { amount: x, amountUp: 1 });
      assert.equal(payable(first), x);
      await admin(t.app, 'POST', `/admin/orders/${first.json().id}/confirm`, {});
      assert.equal(payable(await order(merchant, { amount: x, amountUp: 1 })), x);
    });
  });

  describe('concurrency', () => {
    it('10 parallel orders with one amount get distinct payable amounts', async () => {
      const x = baseAmount();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => order(merchant, { amount: x, amountUp: 5, amountDown: 5 })),
      );
      const amounts = results.map(payable);
      assert.equal(new Set(amounts).size, 10, JSON.stringify(amounts));
      for (const a of amounts) assert.ok(a >= x - 5 && a <= x + 5, `${a} outside [${x - 5}, ${x + 5}]`);
      assert.ok(amounts.includes(x), JSON.stringify(amounts));
    });

    it('parallel shifting and non-shifting orders: shifted amounts never collide', async () => {
      const x = baseAmount();
      const requests = Array.from({ length: 20 }, (_, i) =>
        i % 3 === 0
          ? order(merchant, { amount: x })
          : order(merchant, { amount: x, amountUp: 10, amountDown: 10 }),
      );
      const results = await Promise.all(requests);
      const plain = results.filter((_, i) => i % 3 === 0).map(payable);
      const shifting = results.filter((_, i) => i % 3 !== 0).map(payable);
      assert.deepEqual(plain, Array(plain.length).fill(x), 'orders without deviation keep their amount');
      assert.equal(new Set(shifting).size, shifting.length, JSON.stringify(shifting));
      for (const a of shifting) assert.ok(a >= x - 10 && a <= x + 10, `${a} outside [${x - 10}, ${x + 10}]`);
    });

    it('50 parallel orders with one amount and up=down=30 get 50 distinct amounts in range', {
      skip: needsPostgres('parallel transactions (PGlite runs one query at a time)'),
    }, async () => {
      const x = baseAmount();
      const results = await Promise.all(
        Array.from({ length: 50 }, () => order(merchant, { amount: x, amountUp: 30, amountDown: 30 })),
      );
      const amounts = results.map(payable);
      assert.equal(new Set(amounts).size, 50, JSON.stringify([...amounts].sort()));
      for (const a of amounts) assert.ok(a >= x - 30 && a <= x + 30, `${a} outside [${x - 30}, ${x + 30}]`);
      assert.ok(amounts.includes(x), JSON.stringify(amounts));
    });
  });
});
