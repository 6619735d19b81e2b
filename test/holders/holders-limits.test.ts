import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, admin, createMerchant, createOrder } from '../helpers/merchant-client.js';
import { type Books, confirmedPayin } from './holders-helpers.js';

// Limits that act: an order that would take a holder's held amount plus pending orders past
// exposure_limit + security_deposit goes to another holder (the claim's check, docs/decisions.md
// "Holders' limits in the claim"); a holder whose held amount is past it (a lower limit, a
// correction) has their requisites paused (`paused_reason: holder`); a settlement, a deposit or a
// higher limit brings them back. Synthetic holders and amounts.

interface HolderDetail {
  blocked: boolean;
  books: Books;
  requisites: { id: string; paused_reason: string | null }[];
}

describe('holders: limits that act', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const AMOUNT = 7_019;
  /** A holder with one requisite that takes only orders of about AMOUNT (other files' orders stay off it). */
  async function holderWithRequisite(limit: string) {
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic limited',
      exposure_limit: limit,
    });
    const requisite = await addRequisite(t.app, { min_amount: AMOUNT - 1, max_amount: AMOUNT + 1 });
    await admin(t.app, 'PUT', `/admin/holders/${holder.id}/requisites`, { requisite_ids: [requisite.id] });
    return { holderId: holder.id, requisiteId: requisite.id };
  }
  const detail = (id: string) => admin<HolderDetail>(t.app, 'GET', `/admin/holders/${id}`);

  it('at the limit: the next order goes to another holder; a settlement brings orders back', async () => {
    const merchant = await createMerchant(t.app);
    const a = await holderWithRequisite('10000');
    let paid = await confirmedPayin(t, merchant, AMOUNT);
    while (paid.requisiteId !== a.requisiteId) paid = await confirmedPayin(t, merchant, AMOUNT);
    // 7,019 held: a second order would make 14,038, past 10,000. A lower limit pauses at once.
    await admin(t.app, 'PATCH', `/admin/holders/${a.holderId}`, { exposure_limit: '5000' });
    let read = await detail(a.holderId);
    assert.equal(read.blocked, true);
    assert.deepEqual(
      read.requisites.map((r) => r.paused_reason),
      ['holder'],
    );
    await admin(t.app, 'PATCH', `/admin/holders/${a.holderId}`, { exposure_limit: '10000' });
    // Another holder's requisite takes the next order of that amount.
    const b = await holderWithRequisite('1000000');
    const next = await confirmedPayin(t, merchant, AMOUNT);
    assert.notEqual(next.requisiteId, a.requisiteId);
    // A settlement that leaves 2,000 held: room for one more order again.
    const settleAmount = (Number(read.books.held) - 2000).toFixed(2);
    await admin(t.app, 'POST', `/admin/holders/${a.holderId}/settlements`, {
      amount: settleAmount,
      method: 'cash',
      reference: 'synthetic',
    });
    read = await detail(a.holderId);
    assert.equal(read.books.held, '2000');
    assert.equal(read.blocked, false);
    assert.deepEqual(
      read.requisites.map((r) => r.paused_reason),
      [null],
    );
    // Orders come back: b is taken out, so a's requisite is the one of that amount.
    await admin(t.app, 'PATCH', `/admin/holders/${b.holderId}`, { status: 'suspended' });
    assert.deepEqual(
      (await detail(b.holderId)).requisites.map((r) => r.paused_reason),
      ['holder'],
    );
    // On PostgreSQL other files' requisites share the pool: a's is back once some order lands on it.
    const landed: string[] = [];
    for (let i = 0; i < 30 && !landed.includes(a.requisiteId); i++) {
      const back = (await createOrder(t.app, merchant, { amount: AMOUNT })).json() as { id: string };
      landed.push(
        (await admin<{ requisite_id: string }>(t.app, 'GET', `/admin/orders/${back.id}`)).requisite_id,
      );
    }
    assert.ok(landed.includes(a.requisiteId), 'an order lands on the resumed requisite');
  });

  it('a security deposit raises the limit by its amount; a lower limit pauses at once', async () => {
    const merchant = await createMerchant(t.app);
    const a = await holderWithRequisite('100000');
    let paid = await confirmedPayin(t, merchant, AMOUNT);
    while (paid.requisiteId !== a.requisiteId) paid = await confirmedPayin(t, merchant, AMOUNT);
    await admin(t.app, 'PATCH', `/admin/holders/${a.holderId}`, { exposure_limit: '1000' });
    assert.equal((await detail(a.holderId)).blocked, true);
    await admin(t.app, 'PATCH', `/admin/holders/${a.holderId}`, { security_deposit: '10000' });
    const read = await detail(a.holderId);
    assert.equal(read.blocked, false, 'held ≤ 1,000 + 10,000');
    assert.deepEqual(
      read.requisites.map((r) => r.paused_reason),
      [null],
    );
  });
});
