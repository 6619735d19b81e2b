import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { holders } from '../../src/db/tables/holders.js';
import { money } from '../../src/lib/money.js';
import { accountBalance } from '../../src/modules/ledger/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
} from '../helpers/merchant-client.js';
import { type Books, confirmedPayin, disableRequisites } from './holders-helpers.js';

// The done-when of holders' limits and payouts (docs/decisions.md "Holders' limits in the claim",
// "Payouts through holders"): a holder driven through pay-ins up to their limit gets no more orders
// (the next goes to another holder's requisite) until a settlement brings them under; and after a
// randomized run of pay-ins, payouts, settlements and corrections the identity
// held = received − settled − paid_out + corrections holds for every holder, equal to their ledger
// account and to the running held_rub. Synthetic holders; the run's seed is printed on failure.

interface Detail {
  books: Books;
  requisites: { id: string }[];
}

describe('holders: limits and the ledger identity over a run', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const detail = (id: string) => admin<Detail>(t.app, 'GET', `/admin/holders/${id}`);
  async function holderWith(body: Record<string, unknown>, window: [number, number]) {
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', body);
    const requisite = await addRequisite(t.app, { min_amount: window[0], max_amount: window[1] });
    await admin(t.app, 'PUT', `/admin/holders/${holder.id}/requisites`, { requisite_ids: [requisite.id] });
    return { holderId: holder.id, requisiteId: requisite.id };
  }
  const requisiteOf = async (orderId: string) =>
    (await admin<{ requisite_id: string | null }>(t.app, 'GET', `/admin/orders/${orderId}`)).requisite_id;

  it('up to the limit, then another holder; a settlement brings orders back', async () => {
    const merchant = await createMerchant(t.app);
    const amount = 6_203;
    const window: [number, number] = [amount - 1, amount + 1];
    const a = await holderWith({ name: 'Synthetic A', exposure_limit: String(amount * 2 + 100) }, window);
    // Pay-ins up to A's limit (on PostgreSQL other files' open requisites may take some).
    let onA = 0;
    for (let i = 0; i < 40 && onA < 2; i++)
      if ((await confirmedPayin(t, merchant, amount)).requisiteId === a.requisiteId) onA++;
    assert.equal(onA, 2);
    assert.equal((await detail(a.holderId)).books.held, String(amount * 2));
    const b = await holderWith({ name: 'Synthetic B' }, window);
    const landed: string[] = [];
    for (let i = 0; i < 30 && !landed.includes(b.requisiteId); i++)
      landed.push((await confirmedPayin(t, merchant, amount)).requisiteId ?? '');
    assert.ok(landed.includes(b.requisiteId), 'the next order goes to B');
    assert.ok(!landed.includes(a.requisiteId), 'none goes to A at its limit');
    await admin(t.app, 'POST', `/admin/holders/${a.holderId}/settlements`, {
      amount: String(amount),
      method: 'bank_transfer',
      reference: 'synthetic settlement',
    });
    await admin(t.app, 'PATCH', `/admin/holders/${b.holderId}`, { status: 'suspended' });
    const back: string[] = [];
    for (let i = 0; i < 30 && !back.includes(a.requisiteId); i++) {
      const res = await createOrder(t.app, merchant, { amount });
      assert.equal(res.statusCode, 200, res.body);
      back.push((await requisiteOf((res.json() as { id: string }).id)) ?? '');
    }
    assert.ok(back.includes(a.requisiteId), 'orders come back to A after the settlement');
    await disableRequisites(t, [a.requisiteId, b.requisiteId]);
  });

  it('a randomized run keeps held = received − settled − paid_out + corrections for every holder', async () => {
    const seed = Number(process.env.HOLDERS_RUN_SEED ?? Date.now() % 100_000);
    let state = seed;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    const pickOf = <T>(list: T[]): T => list[Math.floor(random() * list.length)] as T;
    const merchant = await createMerchant(t.app);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 1_000_000,
      reason: 'payout funds',
    });
    const window: [number, number] = [8_100, 8_900];
    const people = [
      await holderWith({ name: 'Synthetic run 1', payouts_allowed: true, commission_percent: '1.5' }, window),
      await holderWith({ name: 'Synthetic run 2', payouts_allowed: true }, window),
      await holderWith({ name: 'Synthetic run 3', exposure_limit: '60000' }, window),
    ];
    const payoutsBy = new Map<string, number>();
    for (let step = 0; step < 36; step++) {
      const who = pickOf(people);
      const op = pickOf(['payin', 'payin', 'payout', 'settlement', 'correction']);
      const held = Number((await detail(who.holderId)).books.held);
      if (op === 'payin') {
        const res = await createOrder(t.app, merchant, { amount: 8_100 + Math.floor(random() * 800) });
        // A holder at their limit takes none; when every requisite of the window is out, none is found.
        if (res.statusCode === 200)
          await admin(t.app, 'POST', `/admin/orders/${(res.json() as { id: string }).id}/confirm`, {});
      } else if (op === 'payout') {
        const amount = 500 + Math.floor(random() * 3000);
        const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
          body: {
            merchant_id: merchant.id,
            direction: 'PAYOUT',
            type: 'sim',
            amount,
            payout_details: {
              holderAccount: '79001234567',
              holderName: 'Synthetic Payee',
              methodName: 'Sberbank',
            },
          },
        });
        assert.equal(res.statusCode, 200, `seed ${seed}: ${res.body}`);
        const id = (res.json() as { id: string }).id;
        const flagged = people.slice(0, 2);
        const payer = pickOf(flagged);
        await admin(t.app, 'POST', `/admin/payouts/${id}/holder`, { holder_id: payer.holderId });
        await admin(t.app, 'POST', `/admin/payouts/${id}/holder-sent`, { holder_id: payer.holderId });
        payoutsBy.set(payer.holderId, (payoutsBy.get(payer.holderId) ?? 0) + amount);
      } else if (op === 'settlement' && held > 0) {
        const amount = Math.max(0.01, Math.floor(random() * held * 100) / 100);
        await admin(t.app, 'POST', `/admin/holders/${who.holderId}/settlements`, {
          amount: amount.toFixed(2),
          method: 'cash',
          reference: `run ${step}`,
        });
      } else if (op === 'correction') {
        const amount = (Math.floor(random() * 2000) - 1000 || 1).toFixed(2);
        await admin(t.app, 'POST', `/admin/holders/${who.holderId}/corrections`, {
          amount,
          reason: `run ${step}`,
        });
      }
    }
    for (const p of people) {
      const b = (await detail(p.holderId)).books;
      const identity = money(b.received).minus(b.settled).minus(b.paid_out).plus(b.corrections);
      assert.equal(b.held, identity.toFixed(), `seed ${seed}: ${JSON.stringify(b)}`);
      const ledger = await accountBalance(t.database.db, `holder:${p.holderId}`, 'RUB');
      assert.equal(b.held, ledger.toFixed(), `seed ${seed}`);
      const row = (await t.database.db.select().from(holders).where(eq(holders.id, p.holderId)))[0];
      assert.equal(money(row?.heldRub ?? 'NaN').toFixed(), b.held, `seed ${seed}: held_rub`);
      assert.equal(b.paid_out, String(payoutsBy.get(p.holderId) ?? 0), `seed ${seed}: paid out`);
    }
    await disableRequisites(
      t,
      people.map((p) => p.requisiteId),
    );
  });
});
