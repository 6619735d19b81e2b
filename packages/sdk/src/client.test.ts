// Unit tests of the exact requests each client call sends (docs/api.md Endpoints, Authentication).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMerchantClient, sign } from './index.js';
import {
  BALANCE,
  BALANCE_OK,
  client,
  EMPTY_SIG,
  fakeFetch,
  fakeSleep,
  KEY,
  ORDER_BODY,
  ORDER_SIG,
  TOO_MANY,
} from './test-doubles.js';

describe('requests', () => {
  const ok = (data: unknown) => ({ status: 200, body: { success: true, ok: true, data } });

  it('createOrder: compact JSON with merchant_id first, signed over exactly the bytes sent', async () => {
    const f = fakeFetch([{ status: 200, body: { ok: true, id: 'lux1', payment_id: 'lux1' } }]);
    const answer = await client(f.fn).createOrder({ amount: 1000, type: 'sim' });
    assert.equal(answer.id, 'lux1');
    const [call] = f.calls;
    assert.ok(call);
    assert.equal(call.url, 'https://pay.example.test/merchant/createOrder');
    assert.equal(call.init.method, 'POST');
    assert.equal(call.init.body, ORDER_BODY);
    assert.deepEqual(call.headers, {
      accept: 'application/json',
      'client-api-key': KEY,
      'x-api-key': ORDER_SIG,
      'content-type': 'application/json',
    });
  });

  it('createOrder PAYOUT and pool bodies keep the given fields', async () => {
    const f = fakeFetch([{ status: 200, body: { ok: true } }]);
    const c = client(f.fn);
    await c.createOrder({
      direction: 'PAYOUT',
      amount: 500,
      type: 'card',
      payout_details: { holderAccount: '2200123456789012', holderName: 'Ivan', methodName: 'Sberbank' },
    });
    await c.createOrder({ usePool: true, requisiteId: 'off-1', type: 'sim', currency: 'TRY' });
    assert.equal(
      f.calls[0]?.init.body,
      '{"merchant_id":"shop1","direction":"PAYOUT","amount":500,"type":"card","payout_details":{"holderAccount":"2200123456789012","holderName":"Ivan","methodName":"Sberbank"}}',
    );
    assert.equal(
      f.calls[1]?.init.body,
      '{"merchant_id":"shop1","usePool":true,"requisiteId":"off-1","type":"sim","currency":"TRY"}',
    );
    assert.equal(f.calls[1]?.headers['x-api-key'], sign(KEY, String(f.calls[1]?.init.body)));
  });

  it('GETs sign an empty body, send no body and return the data payload', async () => {
    const f = fakeFetch([BALANCE_OK]);
    assert.deepEqual(await client(f.fn).getBalance(), BALANCE);
    const [call] = f.calls;
    assert.equal(call?.url, 'https://pay.example.test/merchant/balance/shop1');
    assert.equal(call?.init.method, 'GET');
    assert.equal(call?.init.body, undefined);
    assert.equal(call?.headers['x-api-key'], EMPTY_SIG);
    assert.equal(call?.headers['content-type'], undefined);
  });

  it('paths: order id URL-encoded, banks, standards, pool; a base path prefix is kept', async () => {
    const f = fakeFetch([ok({ id: 'lux1' }), ok([{ code: 's', name: 'S' }]), ok([]), ok([])]);
    const c = createMerchantClient({
      baseUrl: 'http://127.0.0.1:9/api',
      merchantId: 'm 1',
      apiKey: KEY,
      fetch: f.fn,
    });
    assert.deepEqual(await c.getOrder('a b/ц?#'), { id: 'lux1' });
    assert.deepEqual(await c.listBanks(), [{ code: 's', name: 'S' }]);
    await c.bankStandards();
    await c.poolRequisites();
    assert.deepEqual(
      f.calls.map((x) => x.url),
      [
        'http://127.0.0.1:9/api/merchant/order/a%20b%2F%D1%86%3F%23',
        'http://127.0.0.1:9/api/merchant/banks',
        'http://127.0.0.1:9/api/merchant/bank-standards',
        'http://127.0.0.1:9/api/merchant/pool/requisites',
      ],
    );
    assert.ok(f.calls.every((x) => x.headers['x-api-key'] === EMPTY_SIG));
  });

  it('listOrders: merchant_id and the filters in the query; dates as UTC YYYY-MM-DD HH:MM:SS', async () => {
    const f = fakeFetch([ok({ total: 0, page: 2, size: 5, orders: [] })]);
    const page = await client(f.fn).listOrders({
      page: 2,
      size: 5,
      order_status: 'success',
      direction: 'PAYIN',
      start_date: new Date('2026-01-02T03:04:05.678Z'),
      end_date: '2026-01-03 00:00:00',
    });
    assert.deepEqual(page, { total: 0, page: 2, size: 5, orders: [] });
    const url = new URL(f.calls[0]?.url ?? '');
    assert.equal(url.pathname, '/merchant/orders');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      merchant_id: 'shop1',
      page: '2',
      size: '5',
      order_status: 'success',
      direction: 'PAYIN',
      start_date: '2026-01-02 03:04:05',
      end_date: '2026-01-03 00:00:00',
    });
  });

  it('uploadReceiptFile: multipart orderId + receipt file, signed as an empty body', async () => {
    const f = fakeFetch([{ status: 200, body: { success: true, purchaseId: 'o-1', internalId: 'lux1' } }]);
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 1, 2, 3]);
    const answer = await client(f.fn).uploadReceiptFile('o-1', bytes, 'r.pdf', 'application/pdf');
    assert.deepEqual(answer, { success: true, purchaseId: 'o-1', internalId: 'lux1' });
    const call = f.calls[0];
    assert.equal(call?.headers['x-api-key'], EMPTY_SIG);
    assert.equal(call?.headers['content-type'], undefined, 'fetch sets the multipart boundary itself');
    const form = call?.init.body;
    assert.ok(form instanceof FormData);
    assert.deepEqual([...form.keys()], ['orderId', 'receipt']);
    assert.equal(form.get('orderId'), 'o-1');
    const file = form.get('receipt');
    assert.ok(file instanceof Blob);
    assert.equal((file as File).name, 'r.pdf');
    assert.equal(file.type, 'application/pdf');
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);
  });

  it('uploadReceiptFile: a fresh form for each retried attempt', async () => {
    const f = fakeFetch([TOO_MANY, { status: 200, body: { success: true } }]);
    const s = fakeSleep();
    await client(f.fn, { sleep: s.fn }).uploadReceiptFile('o-1', new Blob(['x']), 'r.png');
    assert.equal(f.calls.length, 2);
    assert.notEqual(f.calls[0]?.init.body, f.calls[1]?.init.body);
    assert.ok(f.calls[1]?.init.body instanceof FormData);
  });

  it('uploadReceiptUrl: compact JSON orderId then receiptUrl, signed over it', async () => {
    const f = fakeFetch([{ status: 200, body: { success: true, purchaseId: 'o-1', internalId: 'lux1' } }]);
    await client(f.fn).uploadReceiptUrl('o-1', 'https://files.example/r.pdf');
    const body = '{"orderId":"o-1","receiptUrl":"https://files.example/r.pdf"}';
    assert.equal(f.calls[0]?.init.body, body);
    assert.equal(f.calls[0]?.headers['x-api-key'], sign(KEY, body));
    assert.equal(f.calls[0]?.headers['content-type'], 'application/json');
  });
});
