import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { multipartBody, pdfFile } from '../helpers/files.js';
import { admin, adminRaw, createMerchant, merchantRequest } from '../helpers/merchant-client.js';
import { type Books, operatorsByRole } from './holders-helpers.js';

// Payouts through holders (docs/decisions.md "Payouts through holders"): an operator gives a PAYOUT
// to a holder whose payouts are allowed, the holder's send is recorded with a receipt, and what they
// hold goes down by the payout's amount, once. Bad input: clear codes, nothing written.

function expectError(res: LightMyRequestResponse, status: number, message: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal((res.json() as { message: string }).message, message, res.body);
}

describe('holders: payouts sent from a holder card', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function payout(amount: number) {
    const merchant = await createMerchant(t.app);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: amount * 2,
      reason: 'funding',
    });
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
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { id: string }).id;
  }
  const books = async (id: string) =>
    (await admin<{ books: Books }>(t.app, 'GET', `/admin/holders/${id}`)).books;

  it('assigned, sent with a receipt: held goes down by the amount, once; the payouts role may do it', async () => {
    const as = await operatorsByRole(t);
    const holder = await admin<{ id: string; payouts_allowed: boolean }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic payer',
      payouts_allowed: true,
    });
    assert.equal(holder.payouts_allowed, true);
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, {
      amount: '3000',
      reason: 'opening',
    });
    const id = await payout(1200);
    const assigned = await as('payouts', 'POST', `/admin/payouts/${id}/holder`, { holder_id: holder.id });
    assert.equal(assigned.statusCode, 200, assigned.body);
    assert.equal(assigned.json().data.amount, '1200');
    // A viewer may not.
    expectError(
      await as('viewer', 'POST', `/admin/payouts/${id}/holder`, { holder_id: holder.id }),
      403,
      'FORBIDDEN',
    );
    const { body, contentType } = multipartBody(
      { holder_id: holder.id, reason: 'sent from the holder card' },
      { field: 'proof', filename: 'receipt.pdf', contentType: 'application/pdf', data: pdfFile('receipt') },
    );
    const sent = await t.app.inject({
      method: 'POST',
      url: `/admin/payouts/${id}/holder-sent`,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': contentType },
      payload: body,
    });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(sent.json().data.status, 'success');
    const after1 = await books(holder.id);
    assert.equal(after1.paid_out, '1200');
    assert.equal(after1.held, '1800');
    // Marking it again changes nothing (the order is not pending; the posting is keyed once).
    const again = await adminRaw(t.app, 'POST', `/admin/payouts/${id}/holder-sent`, { holder_id: holder.id });
    assert.notEqual(again.statusCode, 200);
    assert.deepEqual(await books(holder.id), after1);
    const proofs = await admin<Array<{ order_id: string; source: string }>>(
      t.app,
      'GET',
      '/admin/receipts?status=accepted&limit=1000',
    );
    assert.equal(proofs.find((r) => r.order_id === id)?.source, 'payout_proof');
  });

  it('bad input: no flag, another holder, a pay-in, an unknown holder -> clear codes, nothing written', async () => {
    const plain = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic no payouts',
    });
    const other = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic other',
      payouts_allowed: true,
    });
    const mine = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic mine',
      payouts_allowed: true,
    });
    const id = await payout(700);
    expectError(
      await adminRaw(t.app, 'POST', `/admin/payouts/${id}/holder`, { holder_id: plain.id }),
      409,
      'HOLDER_PAYOUTS_NOT_ALLOWED',
    );
    expectError(
      await adminRaw(t.app, 'POST', `/admin/payouts/${id}/holder`, {
        holder_id: '00000000-0000-4000-8000-000000000000',
      }),
      404,
      'NOT_FOUND',
    );
    // Not given to anyone yet: no holder may mark it sent.
    expectError(
      await adminRaw(t.app, 'POST', `/admin/payouts/${id}/holder-sent`, { holder_id: mine.id }),
      409,
      'HOLDER_PAYOUT_MISMATCH',
    );
    await admin(t.app, 'POST', `/admin/payouts/${id}/holder`, { holder_id: mine.id });
    // Another holder acting on mine's payout.
    expectError(
      await adminRaw(t.app, 'POST', `/admin/payouts/${id}/holder-sent`, { holder_id: other.id }),
      409,
      'HOLDER_PAYOUT_MISMATCH',
    );
    const order = await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`);
    assert.equal(order.status, 'pending');
    for (const h of [plain, other, mine]) assert.equal((await books(h.id)).paid_out, '0');
    // A suspended holder takes no payouts.
    await admin(t.app, 'PATCH', `/admin/holders/${other.id}`, { status: 'suspended' });
    expectError(
      await adminRaw(t.app, 'POST', `/admin/payouts/${id}/holder`, { holder_id: other.id }),
      409,
      'HOLDER_PAYOUTS_NOT_ALLOWED',
    );
    expectError(
      await adminRaw(t.app, 'POST', '/admin/payouts/lux-no-such-order/holder', { holder_id: mine.id }),
      404,
      'ORDER_NOT_FOUND',
    );
  });

  it('given but not sent: held and the room stay as they were; a failed payout posts nothing', async () => {
    // docs/decisions.md "Payouts given but not sent": only a sent payout lowers what is held.
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic unsent',
      payouts_allowed: true,
      exposure_limit: '5000',
    });
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, {
      amount: '4000',
      reason: 'opening',
    });
    const id = await payout(3000);
    await admin(t.app, 'POST', `/admin/payouts/${id}/holder`, { holder_id: holder.id });
    const given = await books(holder.id);
    assert.equal(given.held, '4000');
    assert.equal(given.paid_out, '0');
    const read = await admin<{ blocked: boolean }>(t.app, 'GET', `/admin/holders/${holder.id}`);
    assert.equal(read.blocked, false);
    // What is held may still be settled in full while the payout waits.
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/settlements`, {
      amount: '4000',
      method: 'cash',
      reference: 'synthetic full handover',
    });
    const failed = await adminRaw(t.app, 'POST', `/admin/orders/${id}/cancel`, {
      reason: 'synthetic failure',
    });
    assert.equal(failed.statusCode, 200, failed.body);
    const after = await books(holder.id);
    assert.deepEqual([after.held, after.paid_out, after.settled], ['0', '0', '4000']);
  });
});

const ADMIN = 'test-admin-token-0123456789abcdef';
