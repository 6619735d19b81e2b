import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/database.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

describe('100 pending orders on 3 requisites, notifications in random order (issue 9)', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  const reqs: Array<{ id: string }> = [];
  let device: { token: string };

  before(async () => {
    t = await startTestApp();
    // The same-bank type `rshb` only reaches Rosselkhozbank requisites, which only this file adds.
    merchant = await createMerchant(t.app, {
      payment_types: ['rshb'],
      payin_fee_percent: 1.5,
      order_ttl_seconds: 3600,
    });
    for (let i = 0; i < 3; i++)
      reqs.push(
        await addRequisite(t.app, { kind: 'phone', bank: 'Rosselkhozbank', max_active_orders: 1000 }),
      );
    device = await admin(t.app, 'POST', '/admin/devices', {
      name: `scale-${randomUUID().slice(0, 6)}`,
      requisite_ids: reqs.map((r) => r.id),
    });
  });
  after(() => t.close());

  it('every order is matched to its own notification and the ledger equals the credits', async () => {
    const created: Array<{ id: string; amount: string; requisite: string; afterFee: number }> = [];
    for (let i = 0; i < 100; i++) {
      // One amount for all: disambiguation makes the payable amounts distinct (8.5M: no other file's band).
      const res = await createOrder(t.app, merchant, {
        type: 'rshb',
        amount: 8_500_000,
        amountUp: 100,
        amountDown: 100,
      });
      assert.equal(res.statusCode, 200, res.body);
      const o = res.json();
      const row = rowsOf<{ requisite_id: string }>(
        await t.database.db.execute(sql`SELECT requisite_id FROM orders WHERE id = ${o.id}`),
      )[0];
      created.push({
        id: o.id,
        amount: o.payment_details.amount,
        requisite: String(row?.requisite_id),
        afterFee: o.amountAfterFee,
      });
    }
    assert.equal(new Set(created.map((c) => c.requisite)).size, 3, 'orders spread over the 3 requisites');
    assert.equal(new Set(created.map((c) => c.amount)).size, 100, 'payable amounts are distinct');
    const shuffled = [...created].sort(() => Math.random() - 0.5);
    for (const c of shuffled) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/trader/notifications',
        headers: { authorization: `Bearer ${device.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          message_id: randomUUID(),
          requisite_id: c.requisite,
          amount: c.amount,
          currency: 'RUB',
          received_at: new Date().toISOString(),
        }),
      });
      assert.equal(res.json().data.status, 'matched', res.body);
      assert.equal(res.json().data.order_id, c.id, 'matched to the right order');
    }
    const balance = (await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`)).json();
    const rub = balance.balances.find((b: { currency: string }) => b.currency === 'RUB');
    const expected = created.reduce((sum, c) => sum + Math.round(c.afterFee * 100), 0) / 100;
    assert.equal(rub.balance, expected);
    const ledger = rowsOf<{ s: string }>(
      await t.database.db.execute(
        sql`SELECT sum(amount) AS s FROM ledger_entries WHERE account = ${`merchant:${merchant.id}`}`,
      ),
    )[0];
    assert.equal(Number(ledger?.s), expected);
  });
});
