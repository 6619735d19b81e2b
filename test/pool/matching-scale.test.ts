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
import { gatewaySms, type PairedDevice, pairDevice } from '../helpers/phones.js';

// Rosselkhozbank has no rules of its own: once operators list its sender, its texts are read by
// their parts (direction word, amount, card ending). Texts are synthetic, in the common shape.
const rshbSms = (amount: string, mask: string) =>
  `Зачисление ${amount.replace('.', ',')} руб. на карту *${mask} от ИВАН И. Баланс 9 000 000,00 руб.`;

describe('100 pending orders on 3 requisites, bank SMS in random order', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  const reqs: Array<{ id: string; mask: string }> = [];
  let device: PairedDevice;

  before(async () => {
    t = await startTestApp();
    // The same-bank type `rshb` only reaches Rosselkhozbank requisites, which only this file adds.
    merchant = await createMerchant(t.app, {
      payment_types: ['rshb'],
      payin_fee_percent: 1.5,
      order_ttl_seconds: 3600,
    });
    for (let i = 0; i < 3; i++) {
      const mask = String(7101 + i);
      const r = await addRequisite(t.app, {
        kind: 'card',
        bank: 'Rosselkhozbank',
        address: `2200${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}00${mask}`,
        max_active_orders: 1000,
      });
      reqs.push({ id: r.id, mask });
    }
    await admin(t.app, 'PATCH', '/admin/banks/rshb', { sms_senders: ['RSHB'] });
    device = await pairDevice(
      t.app,
      reqs.map((r) => r.id),
    );
  });
  after(() => t.close());

  it('every order is confirmed by its own SMS, read by its parts, and the ledger equals the credits', async () => {
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
      const mask = reqs.find((r) => r.id === c.requisite)?.mask ?? '';
      const res = await gatewaySms(
        t.app,
        device,
        { sender: 'RSHB', text: rshbSms(c.amount, mask), receivedAt: new Date() },
        Date.now(),
      );
      assert.equal(res.json().data.status, 'confirmed', res.body);
      assert.equal(
        (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${c.id}`)).status,
        'success',
      );
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
