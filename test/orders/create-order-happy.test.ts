import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

describe('POST /merchant/createOrder fiat PAYIN: happy path', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, { payin_fee_percent: 2.5 });
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'card' });
  });
  after(() => t.close());

  it('answers the contract shape with payment details from the pool', async () => {
    const amount = uniqueAmount();
    const res = await createOrder(t.app, merchant, { amount, type: 'sim', order_id: 'ord-1' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.ok, true);
    assert.match(body.id, /^lux[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(body.payment_id, 'ord-1');
    assert.equal(body.status, 'pending');
    assert.equal(body.direction, 'PAYIN');
    assert.equal(body.currency, 'RUB');
    assert.equal(body.usdtAmount, null);
    assert.equal(body.usdtAmountAfterFee, null);
    assert.equal(body.exchangeRate, null);
    assert.equal(body.amountAfterFee, Number((amount - amount * 0.025).toFixed(2)));
    assert.equal(body.remainingSeconds, 900);
    assert.equal(body.payment_details.type, 'sim');
    assert.equal(body.payment_details.amount, String(amount));
    assert.match(body.payment_details.address, /^7\d{10}$/);
    assert.equal(body.payment_details.bank, 'Sberbank');
    assert.equal(body.payment_details.holder_name, 'Ivan Petrov');
    assert.equal('form_url' in body.payment_details, false);
  });

  it('confirm credits the ledger and the order reads back as success', async () => {
    const amount = uniqueAmount();
    const created = (await createOrder(t.app, merchant, { amount, type: 'card' })).json();
    const confirmed = await admin(t.app, 'POST', `/admin/orders/${created.id}/confirm`, {});
    assert.equal(confirmed.status, 'success');
    const read = await merchantRequest(t.app, merchant, `/merchant/order/${created.id}`);
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.json().status, 'success');
    assert.equal(read.json().data.status, 'success');
    const balance = await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`);
    assert.equal(balance.statusCode, 200, balance.body);
    assert.equal(balance.json().balance, created.amountAfterFee);
  });
});
