import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { multipartBody, pngFile } from '../helpers/files.js';
import {
  addRequisite,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
} from '../helpers/merchant-client.js';

// An id is resolved within the caller's own orders first (docs/decisions.md section 1).
describe("a merchant always reads its own order, never learns of another's (docs/decisions.md section 1)", () => {
  let t: TestApp;
  let a: TestMerchant;
  let b: TestMerchant;
  let c: TestMerchant;
  let ordersOfA: { id: string };
  let ordersOfB: { id: string; payment_id: string };

  before(async () => {
    t = await startTestApp();
    [a, b, c] = [await createMerchant(t.app), await createMerchant(t.app), await createMerchant(t.app)];
    await addRequisite(t.app, { kind: 'phone' });
    ordersOfA = (await createOrder(t.app, a)).json();
    // B's order_id is, as the contract allows, any string: here A's internal id.
    const res = await createOrder(t.app, b, { order_id: ordersOfA.id, type: 'sbp_pdf' });
    assert.equal(res.statusCode, 200, res.body);
    ordersOfB = res.json();
  });
  after(async () => t.close());

  const read = (m: TestMerchant, id: string) => merchantRequest(t.app, m, `/merchant/order/${id}`);

  it('B reads its own order by that order_id (200, its own), not 403', async () => {
    const res = await read(b, ordersOfA.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().id, res.json().order_id], [ordersOfB.id, ordersOfA.id]);
  });

  it('A still reads its own order by its internal id', async () => {
    const res = await read(a, ordersOfA.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().id, ordersOfA.id);
  });

  it("C gets 403 for A's internal id and 404 for an unknown one; B gets 403 for A's by nothing else", async () => {
    assert.equal((await read(c, ordersOfA.id)).json().message, 'ORDER_FORBIDDEN');
    assert.equal((await read(c, ordersOfB.id)).json().message, 'ORDER_FORBIDDEN');
    assert.equal(
      (await read(c, 'lux01990000-0000-7000-8000-000000000000')).json().message,
      'ORDER_NOT_FOUND',
    );
    assert.equal((await read(a, ordersOfB.id)).json().message, 'ORDER_FORBIDDEN');
  });

  it('the receipt upload resolves the same way: B attaches to its own order', async () => {
    const { body, contentType } = multipartBody(
      { orderId: ordersOfA.id },
      { field: 'receipt', filename: 'r.png', contentType: 'image/png', data: pngFile() },
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/merchant/receipt/upload',
      headers: { 'content-type': contentType, 'client-api-key': b.apiKey, 'x-api-key': sign(b.apiKey) },
      payload: body,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { success: true, purchaseId: ordersOfA.id, internalId: ordersOfB.id });
    assert.equal((await read(a, ordersOfA.id)).json().receiptStatus, null, "A's order got nothing");
  });
});
