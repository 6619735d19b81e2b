import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { admin, createMerchant, merchantRequest, type TestMerchant } from '../helpers/merchant-client.js';

// docs/decisions.md section 2.
describe('Retry-After tells the real wait; asset names are own keys only (docs/decisions.md section 2)', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  before(async () => {
    t = await startTestApp({ config: { rateLimits: true } });
    merchant = await createMerchant(t.app, { payout_fee_percent: 1 });
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: '100000',
      reason: 'test funds',
    });
  });
  after(async () => t.close());

  it('item 8: a PAYOUT refused by its 1 per 5 s limit says Retry-After 4 or 5, not 1', async () => {
    const payout = (n: number) =>
      merchantRequest(t.app, merchant, '/merchant/createOrder', {
        body: {
          merchant_id: merchant.id,
          direction: 'PAYOUT',
          type: 'card',
          amount: 1000,
          order_id: `po-${n}-${Date.now()}`,
          payout_details: {
            holderAccount: '2200123456789012',
            holderName: 'Ivan I.',
            methodName: 'Sberbank',
          },
        },
      });
    const first = await payout(1);
    assert.equal(first.statusCode, 200, first.body);
    const second = await payout(2);
    assert.equal(second.statusCode, 429, second.body);
    const retry = Number(second.headers['retry-after']);
    assert.ok(retry >= 4 && retry <= 5, `Retry-After ${second.headers['retry-after']}`);
    assert.equal(second.json().error, 'Too many requests, slow down.');
  });

  it('item 12: /form/assets/__proto__, constructor and friends are 404; the real assets 200', async () => {
    for (const name of [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: `/form/assets/${name}` });
      assert.equal(res.statusCode, 404, `${name}: ${res.statusCode} ${res.body.slice(0, 80)}`);
    }
    for (const name of ['form.css', 'form.js']) {
      assert.equal((await t.app.inject({ method: 'GET', url: `/form/assets/${name}` })).statusCode, 200);
    }
  });
});
