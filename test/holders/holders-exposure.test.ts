import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, admin, createMerchant, createOrder, sign } from '../helpers/merchant-client.js';
import { disableRequisites } from './holders-helpers.js';

// Limits that count pending orders, inside the claim (docs/decisions.md "Holders' limits in the
// claim"): a holder's held amount plus their pending orders plus the new order's amount never passes
// their limit plus deposit, also under parallel createOrder requests over HTTP (on PostgreSQL they
// run on separate connections). Synthetic holders; each test's amounts lie in a window of its own.

describe('holders: limits count pending orders in the claim', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** A holder with `count` requisites that take only orders of amount-1..amount+1. */
  async function limitedHolder(amount: number, limit: string, count: number, deposit?: string) {
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic exposure',
      exposure_limit: limit,
      ...(deposit ? { security_deposit: deposit } : {}),
    });
    const ids: string[] = [];
    for (let i = 0; i < count; i++)
      ids.push((await addRequisite(t.app, { min_amount: amount - 1, max_amount: amount + 1 })).id);
    await admin(t.app, 'PUT', `/admin/holders/${holder.id}/requisites`, { requisite_ids: ids });
    return { holderId: holder.id, requisiteIds: ids };
  }

  const requisiteOf = async (orderId: string) =>
    (await admin<{ requisite_id: string | null }>(t.app, 'GET', `/admin/orders/${orderId}`)).requisite_id ??
    '';

  it('pending orders count: an order that would pass limit + deposit never lands on the holder', async () => {
    const merchant = await createMerchant(t.app);
    const amount = 4_317;
    const h = await limitedHolder(amount, '7000', 2, '2000');
    // On PostgreSQL other files' open requisites may take some orders: count those on h's.
    const mine: string[] = [];
    for (let i = 0; i < 60 && mine.length < 3; i++) {
      const res = await createOrder(t.app, merchant, { amount });
      if (res.statusCode !== 200) {
        assert.equal((res.json() as { message: string }).message, 'REQUISITES_NOT_FOUND');
        break;
      }
      const id = (res.json() as { id: string }).id;
      if (h.requisiteIds.includes(await requisiteOf(id))) mine.push(id);
    }
    // 2 × 4,317 = 8,634 pending ≤ 7,000 + 2,000; a third would make 12,951.
    assert.equal(mine.length, 2);
    // Nothing was paused: pending orders stop new ones in the claim, not by a pause.
    const detail = await admin<{ requisites: { paused_reason: string | null }[] }>(
      t.app,
      'GET',
      `/admin/holders/${h.holderId}`,
    );
    assert.deepEqual(
      detail.requisites.map((r) => r.paused_reason),
      [null, null],
    );
    // A cancelled order frees its room.
    await admin(t.app, 'POST', `/admin/orders/${mine[0]}/cancel`, { reason: 'synthetic' });
    let back = false;
    for (let i = 0; i < 60 && !back; i++) {
      const res = await createOrder(t.app, merchant, { amount });
      assert.equal(res.statusCode, 200, res.body);
      back = h.requisiteIds.includes(await requisiteOf((res.json() as { id: string }).id));
    }
    assert.ok(back, 'an order lands on the holder again');
    await disableRequisites(t, h.requisiteIds);
  });

  it('parallel createOrder requests over HTTP: never more orders than the limit has room for', async () => {
    const merchant = await createMerchant(t.app);
    const amount = 5_129;
    // Room for exactly three orders, spread over three requisites so that no requisite lock alone
    // serialises them.
    const h = await limitedHolder(amount, String(amount * 3 + 100), 3);
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const send = async () => {
      const body = JSON.stringify({ merchant_id: merchant.id, amount, type: 'sim' });
      const res = await fetch(`${address}/merchant/createOrder`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'client-api-key': merchant.apiKey,
          'x-api-key': sign(merchant.apiKey, body),
        },
      });
      return { status: res.status, body: (await res.json()) as { message?: string; id?: string } };
    };
    // Bursts of 10 parallel requests until one puts nothing more on h (on PostgreSQL other files'
    // open requisites may take some of each burst).
    let onHolder = 0;
    for (let burst = 0; burst < 5; burst++) {
      const answers = await Promise.all(Array.from({ length: 10 }, send));
      let landed = 0;
      for (const a of answers) {
        if (a.status !== 200) {
          assert.equal(a.body.message, 'REQUISITES_NOT_FOUND', JSON.stringify(a));
          continue;
        }
        if (h.requisiteIds.includes(await requisiteOf(a.body.id ?? ''))) landed++;
      }
      onHolder += landed;
      assert.ok(onHolder <= 3, `${onHolder} orders on a holder with room for 3`);
      if (landed === 0) break;
    }
    assert.equal(onHolder, 3);
    await disableRequisites(t, h.requisiteIds);
  });
});
