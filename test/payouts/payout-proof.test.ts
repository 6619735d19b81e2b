import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { multipartBody, pdfFile } from '../helpers/files.js';
import { admin, createMerchant, merchantRequest } from '../helpers/merchant-client.js';

describe('operator marks a payout sent with a proof file (multipart)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('confirms, debits the hold and keeps the proof as an accepted receipt', async () => {
    const merchant = await createMerchant(t.app);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 5000,
      reason: 'funding',
    });
    const created = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        direction: 'PAYOUT',
        type: 'sim',
        amount: 1000,
        payout_details: { holderAccount: '79001234567', holderName: 'Ivan I.', methodName: 'Sberbank' },
      },
    });
    assert.equal(created.statusCode, 200, created.body);
    const id = created.json().id as string;
    const { body, contentType } = multipartBody(
      { reason: 'sent via bank app' },
      { field: 'proof', filename: 'proof.pdf', contentType: 'application/pdf', data: pdfFile('proof') },
    );
    const res = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${id}/confirm`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
      payload: body,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'success');
    assert.equal(res.json().data.status_reason, 'sent via bank app');
    const balance = (await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`)).json();
    assert.equal(balance.balance, 4000, JSON.stringify(balance));
    assert.equal(balance.reserved, 0);
    const proofs = await admin<
      Array<{ order_id: string; source: string; status: string; content_type: string }>
    >(t.app, 'GET', '/admin/receipts?status=accepted&limit=1000');
    const proof = proofs.find((r) => r.order_id === id);
    assert.equal(proof?.source, 'payout_proof');
    assert.equal(proof?.content_type, 'application/pdf');
  });
});
