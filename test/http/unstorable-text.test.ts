import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { postLogin } from '../helpers/console.js';
import {
  addRequisite,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

/** 400 VALIDATION_ERROR whose first detail names `field` (docs/decisions.md "Text that cannot be stored"). */
function assertUnstorable(res: LightMyRequestResponse, field: string): void {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json() as { message: string; details?: Array<{ field: string; problem: string }> };
  assert.equal(body.message, 'VALIDATION_ERROR', res.body);
  assert.equal(body.details?.[0]?.field, field, res.body);
  assert.match(body.details?.[0]?.problem ?? '', /U\+0000 or an unpaired surrogate/, res.body);
}

describe('text that cannot be stored is refused before any statement', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  const orderCount = async () => {
    const res = await merchantRequest(t.app, merchant, `/merchant/orders?merchant_id=${merchant.id}&size=1`);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { data: { total: number } }).data.total;
  };

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
  });
  after(() => t.close());

  it('createOrder: U+0000 or a lone surrogate in a text field is 400 naming the field, no order made', async () => {
    const before = await orderCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ comment: 'a\u0000b' }, 'comment'],
      [{ client_id: '\ud800' }, 'client_id'],
      [{ client_id: 'x\udc00y' }, 'client_id'],
      [{ success_callback_url: 'https://example.com/\u0000' }, 'success_callback_url'],
      [{ order_id: `lone-\udbff-${Date.now()}` }, 'order_id'],
      [{ payout_details: { account: ['ok', 'bad\u0000'] } }, 'payout_details.account.1'],
    ];
    for (const [fields, field] of cases) assertUnstorable(await createOrder(t.app, merchant, fields), field);
    assert.equal(await orderCount(), before, 'no order was created');
  });

  it('createOrder: text with characters beyond U+FFFF (surrogate pairs) is stored as sent', async () => {
    const comment = 'оплата 😀 𝄞';
    const res = await createOrder(t.app, merchant, { comment });
    assert.equal(res.statusCode, 200, res.body);
    const { id } = res.json() as { id: string };
    const read = await merchantRequest(t.app, merchant, `/merchant/order/${id}`);
    assert.equal(read.statusCode, 200, read.body);
    assert.equal((read.json() as { data: { comment?: string } }).data.comment ?? comment, comment);
  });

  it('a key holding U+0000 inside a field taken whole is refused too, named with an escape', async () => {
    const res = await createOrder(t.app, merchant, { payout_details: { 'k\u0000': 1 } });
    assertUnstorable(res, 'payout_details.k\\u0000');
  });

  it('a field the service ignores is never stored: its text does not stop the order', async () => {
    const res = await createOrder(t.app, merchant, { extra: 'a\u0000\ud800', ['k\u0000']: [1] });
    assert.equal(res.statusCode, 200, res.body);
  });

  it('a query: GET /merchant/orders with U+0000 in a filter is 400 naming it', async () => {
    const res = await merchantRequest(
      t.app,
      merchant,
      `/merchant/orders?merchant_id=${merchant.id}&type=%00`,
    );
    assertUnstorable(res, 'type');
  });

  it('a path id that cannot be stored names no order: 404 ORDER_NOT_FOUND', async () => {
    const res = await merchantRequest(t.app, merchant, '/merchant/order/a%00b');
    assert.equal(res.statusCode, 404, res.body);
    assert.equal((res.json() as { message: string }).message, 'ORDER_NOT_FOUND');
  });

  it('security: an unsigned request learns nothing of its body, unstorable or not (401 first)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/merchant/createOrder',
      headers: { 'content-type': 'application/json', 'client-api-key': merchant.apiKey, 'x-api-key': 'x' },
      payload: '{"comment":"\\u0000"}',
    });
    assert.equal(res.statusCode, 401, res.body);
  });

  it('a console form: U+0000 in a field answers a 4xx page, never a 5xx', async () => {
    const res = await postLogin(t.app, 'op\u0000erator', 'password');
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode} ${res.body.slice(0, 300)}`);
  });
});
