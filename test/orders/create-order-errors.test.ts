import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
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

/** Asserts the error envelope of docs/decisions.md section 2 with the exact status and code. */
function assertError(res: LightMyRequestResponse, status: number, message: string): Record<string, unknown> {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.message, message, res.body);
  assert.equal(body.success, false, res.body);
  assert.equal(body.ok, false, res.body);
  assert.equal(body.status, status, res.body);
  return body;
}

function assertValidation(res: LightMyRequestResponse, field: string): void {
  const body = assertError(res, 400, 'VALIDATION_ERROR') as { details?: Array<{ field: string }> };
  assert.equal(body.details?.[0]?.field, field, JSON.stringify(body));
}

function assertOk(res: LightMyRequestResponse) {
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.ok, true, res.body);
  return body;
}

describe('POST /merchant/createOrder: error rules', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  const send = async (m: TestMerchant, fields: Record<string, unknown>) => {
    const res = await createOrder(t.app, m, fields);
    assert.ok(res.statusCode < 500, `5xx for ${JSON.stringify(fields)}: ${res.body}`);
    return res;
  };
  /** A signed createOrder with exactly this body (no defaults added). */
  const sendExact = (m: TestMerchant, body: Record<string, unknown>) =>
    merchantRequest(t.app, m, '/merchant/createOrder', { body });
  const readOrder = async (m: TestMerchant, id: string) => {
    const res = await merchantRequest(t.app, m, `/merchant/order/${encodeURIComponent(id)}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'card' });
    await addRequisite(t.app, { kind: 'qr' });
  });
  after(() => t.close());

  describe('error: 400 VALIDATION_ERROR names the field', () => {
    it('missing amount', async () => {
      assertValidation(await sendExact(merchant, { merchant_id: merchant.id, type: 'sim' }), 'amount');
    });
    it('missing type', async () => {
      assertValidation(
        await sendExact(merchant, { merchant_id: merchant.id, amount: uniqueAmount() }),
        'type',
      );
    });
    it('comment of 501 characters (500 is accepted)', async () => {
      assertValidation(await send(merchant, { comment: 'x'.repeat(501) }), 'comment');
      const ok = assertOk(await send(merchant, { comment: 'y'.repeat(500) }));
      assert.equal((await readOrder(merchant, ok.id)).comment, 'y'.repeat(500));
    });
    it('amountUp negative or a string; amountDown fractional', async () => {
      assertValidation(await send(merchant, { amountUp: -1 }), 'amountUp');
      assertValidation(await send(merchant, { amountUp: '5' }), 'amountUp');
      assertValidation(await send(merchant, { amountDown: 1.5 }), 'amountDown');
    });
    it('order_id of 129 characters (128 is accepted)', async () => {
      assertValidation(await send(merchant, { order_id: 'a'.repeat(129) }), 'order_id');
      const id = `${randomUUID()}${'b'.repeat(92)}`;
      assert.equal(id.length, 128);
      assert.equal(assertOk(await send(merchant, { order_id: id })).payment_id, id);
    });
    it('unknown direction', async () => {
      assertValidation(await send(merchant, { direction: 'SIDEWAYS' }), 'direction');
    });
    it('success_callback_url not an absolute http(s) URL', async () => {
      assertValidation(
        await send(merchant, { success_callback_url: 'ftp://shop.example.com/h' }),
        'success_callback_url',
      );
      assertValidation(await send(merchant, { success_callback_url: '/hook' }), 'success_callback_url');
    });
  });

  describe('error: codes of the service', () => {
    for (const amount of [0, -100, 10.5, '100']) {
      it(`400 INVALID_AMOUNT for ${JSON.stringify(amount)}`, async () => {
        assertError(await send(merchant, { amount }), 400, 'INVALID_AMOUNT');
      });
    }
    it('400 INVALID_MERCHANT_ID for another merchant_id', async () => {
      assertError(await send(merchant, { merchant_id: `${merchant.id}x` }), 400, 'INVALID_MERCHANT_ID');
    });
    it('400 UNSUPPORTED_PAYMENT_TYPE for an unknown type', async () => {
      assertError(await send(merchant, { type: 'paypal' }), 400, 'UNSUPPORTED_PAYMENT_TYPE');
    });
    it('403 PAYMENT_TYPE_NOT_ALLOWED for a type the merchant does not have', async () => {
      const simOnly = await createMerchant(t.app, { payment_types: ['sim'] });
      assertError(await send(simOnly, { type: 'card' }), 403, 'PAYMENT_TYPE_NOT_ALLOWED');
      assertOk(await send(simOnly, { type: 'sim' }));
    });
    it('400 CURRENCY_NOT_ALLOWED for an unknown currency and one not enabled', async () => {
      assertError(await send(merchant, { currency: 'XXX' }), 400, 'CURRENCY_NOT_ALLOWED');
      assertError(await send(merchant, { currency: 'KZT' }), 400, 'CURRENCY_NOT_ALLOWED');
    });
    it('400 ORDER_AMOUNT_BELOW_MIN_LIMIT / ABOVE_MAX_LIMIT; boundaries accepted', async () => {
      const limited = await createMerchant(t.app, { limits: { sim: { min: 100, max: 100000 } } });
      assertError(await send(limited, { amount: 99 }), 400, 'ORDER_AMOUNT_BELOW_MIN_LIMIT');
      assertError(await send(limited, { amount: 100001 }), 400, 'ORDER_AMOUNT_ABOVE_MAX_LIMIT');
      assert.equal(assertOk(await send(limited, { amount: 100 })).payment_details.amount, '100');
      assert.equal(assertOk(await send(limited, { amount: 100000 })).payment_details.amount, '100000');
      // The limit is per type: card has none.
      assertOk(await send(limited, { type: 'card', amount: 99 }));
    });
  });

  describe('error: 409 ORDER_ALREADY_EXISTS', () => {
    it('a repeated order_id is refused and the first order is unchanged', async () => {
      const orderId = `dup-${randomUUID()}`;
      const amount = uniqueAmount();
      const first = assertOk(await send(merchant, { order_id: orderId, amount, comment: 'first' }));
      const again = await send(merchant, { order_id: orderId, amount: amount + 10, comment: 'second' });
      assertError(again, 409, 'ORDER_ALREADY_EXISTS');
      const read = await readOrder(merchant, orderId);
      assert.equal(read.id, first.id, JSON.stringify(read));
      assert.equal(read.amount, amount, JSON.stringify(read));
      assert.equal(read.payment_details.amount, String(amount), JSON.stringify(read));
      assert.equal(read.comment, 'first', JSON.stringify(read));
      assert.equal(read.status, 'pending', JSON.stringify(read));
      // An order_id equal to the first order's internal id is taken too (external_id defaults to it).
      const generated = assertOk(await send(merchant, {}));
      assertError(await send(merchant, { order_id: generated.id }), 409, 'ORDER_ALREADY_EXISTS');
    });
    it('parallel requests with one order_id: exactly one is created, the rest 409', async () => {
      const orderId = `race-${randomUUID()}`;
      const results = await Promise.all(
        Array.from({ length: 6 }, () => send(merchant, { order_id: orderId })),
      );
      const codes = results.map((r) => r.statusCode).sort();
      assert.deepEqual(codes, [200, 409, 409, 409, 409, 409], results.map((r) => r.body).join('\n'));
      for (const r of results.filter((x) => x.statusCode === 409))
        assertError(r, 409, 'ORDER_ALREADY_EXISTS');
    });
    it('the same order_id for another merchant is fine', async () => {
      const orderId = `shared-${randomUUID()}`;
      const other = await createMerchant(t.app);
      const a = assertOk(await send(merchant, { order_id: orderId }));
      const b = assertOk(await send(other, { order_id: orderId }));
      assert.notEqual(a.id, b.id);
      assert.equal(b.payment_id, orderId);
    });
  });

  describe('error: 409 REQUISITES_NOT_FOUND (ZAR pool of this file)', () => {
    let zar: TestMerchant;
    let created = 0;
    const zarOrder = async (fields: Record<string, unknown>) => {
      const res = await send(zar, { currency: 'ZAR', ...fields });
      if (res.statusCode === 200) created++;
      return res;
    };
    before(async () => {
      zar = await createMerchant(t.app, { currencies: ['ZAR'] });
    });

    it('no requisite in the currency', async () => {
      assertError(await zarOrder({ type: 'sim', amount: 1500 }), 409, 'REQUISITES_NOT_FOUND');
    });
    it('a disabled requisite is not used', async () => {
      const r = await addRequisite(t.app, { kind: 'phone', currency: 'ZAR' });
      await admin(t.app, 'PATCH', `/admin/requisites/${r.id}`, { enabled: false });
      assertError(await zarOrder({ type: 'sim', amount: 1500 }), 409, 'REQUISITES_NOT_FOUND');
    });
    it('a requisite whose min/max excludes the amount is not used', async () => {
      const r = await addRequisite(t.app, {
        kind: 'phone',
        currency: 'ZAR',
        min_amount: 1000,
        max_amount: 2000,
      });
      assertError(await zarOrder({ type: 'sim', amount: 999 }), 409, 'REQUISITES_NOT_FOUND');
      assertError(await zarOrder({ type: 'sim', amount: 2001 }), 409, 'REQUISITES_NOT_FOUND');
      for (const amount of [1000, 1500, 2000]) {
        const ok = assertOk(await zarOrder({ type: 'sim', amount }));
        assert.equal(ok.payment_details.address, r.address, JSON.stringify(ok));
        assert.equal(ok.currency, 'ZAR');
      }
    });
    it('a requisite at max_active_orders is not used until an order ends', async () => {
      const r = await addRequisite(t.app, { kind: 'card', currency: 'ZAR', max_active_orders: 2 });
      const one = assertOk(await zarOrder({ type: 'card', amount: 500 }));
      const two = assertOk(await zarOrder({ type: 'card', amount: 500 }));
      assert.equal(one.payment_details.address, r.address);
      assert.equal(two.payment_details.address, r.address);
      assertError(await zarOrder({ type: 'card', amount: 500 }), 409, 'REQUISITES_NOT_FOUND');
      await admin(t.app, 'POST', `/admin/orders/${one.id}/cancel`, { reason: 'test' });
      assert.equal(
        assertOk(await zarOrder({ type: 'card', amount: 500 })).payment_details.address,
        r.address,
      );
    });
    it('a requisite over its daily limit is not used', async () => {
      await addRequisite(t.app, { kind: 'qr', currency: 'ZAR', daily_limit: 1000 });
      assertOk(await zarOrder({ type: 'qr_smart', amount: 600 }));
      assertError(await zarOrder({ type: 'qr_smart', amount: 600 }), 409, 'REQUISITES_NOT_FOUND');
      assertOk(await zarOrder({ type: 'qr_smart', amount: 400 }));
    });
    it('refused orders are not stored', async () => {
      const res = await merchantRequest(
        t.app,
        zar,
        `/merchant/orders?merchant_id=${zar.id}&size=100&start_date=2000-01-01%2000:00:00&end_date=2100-01-01%2000:00:00`,
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().total, created, res.body);
    });
  });

  describe('happy: same-bank type and emv (BRL pool of this file)', () => {
    let brl: TestMerchant;
    let sber: { id: string; address: string };
    before(async () => {
      brl = await createMerchant(t.app, { currencies: ['BRL'] });
      sber = await addRequisite(t.app, { kind: 'phone', currency: 'BRL', bank: 'Sberbank' });
    });

    it("tbank only gets a requisite at bank 'T-Bank'", async () => {
      assertError(await send(brl, { type: 'tbank', currency: 'BRL' }), 409, 'REQUISITES_NOT_FOUND');
      assert.equal(
        assertOk(await send(brl, { type: 'sim', currency: 'BRL' })).payment_details.address,
        sber.address,
      );
      const tb = await addRequisite(t.app, { kind: 'card', currency: 'BRL', bank: 'T-Bank' });
      for (let i = 0; i < 3; i++) {
        const ok = assertOk(await send(brl, { type: 'tbank', currency: 'BRL' }));
        assert.equal(ok.payment_details.bank, 'T-Bank', JSON.stringify(ok));
        assert.equal(ok.payment_details.address, tb.address, JSON.stringify(ok));
        assert.equal(ok.payment_details.type, 'tbank');
      }
    });
    it('emv is returned when the requisite has one, absent otherwise', async () => {
      const emv = `00020101021226${randomUUID().replaceAll('-', '')}5204000053039865802BR6304ABCD`;
      const qr = await addRequisite(t.app, { kind: 'qr', currency: 'BRL', bank: 'Nubank', emv });
      const ok = assertOk(await send(brl, { type: 'qr_smart', currency: 'BRL' }));
      assert.equal(ok.payment_details.address, qr.address, JSON.stringify(ok));
      assert.equal(ok.payment_details.emv, emv, JSON.stringify(ok));
      const plain = assertOk(await send(brl, { type: 'sim', currency: 'BRL' }));
      assert.equal('emv' in plain.payment_details, false, JSON.stringify(plain));
    });
  });

  describe('happy: stored fields and form_url', () => {
    it('invalid client_* values are ignored and the order is still created', async () => {
      const clientId = `client-${randomUUID()}`;
      const ok = assertOk(
        await send(merchant, {
          client_id: clientId,
          client_registered_at: 'yesterday',
          client_orders_count: -1,
          client_paid_count: 1.5,
        }),
      );
      assert.equal((await readOrder(merchant, ok.id)).client_id, clientId);
      const view = await admin<Record<string, unknown>>(t.app, 'GET', `/admin/orders/${ok.id}`);
      assert.equal(view.client_registered_at, null, JSON.stringify(view));
      assert.equal(view.client_orders_count, null, JSON.stringify(view));
      assert.equal(view.client_paid_count, null, JSON.stringify(view));
      assert.equal(view.paid_orders, null, JSON.stringify(view));
    });
    it('valid client_* values are stored (paid/orders)', async () => {
      const ok = assertOk(
        await send(merchant, {
          client_id: 'c-42',
          client_registered_at: '2024-01-15T10:00:00Z',
          client_orders_count: 20,
          client_paid_count: 10,
        }),
      );
      const view = await admin<Record<string, unknown>>(t.app, 'GET', `/admin/orders/${ok.id}`);
      assert.equal(view.client_id, 'c-42', JSON.stringify(view));
      assert.equal(view.client_registered_at, '2024-01-15T10:00:00.000Z', JSON.stringify(view));
      assert.equal(view.paid_orders, '10/20', JSON.stringify(view));
    });
    for (const type of ['card_pdf', 'sbp_pdf', 'qr_smart']) {
      it(`form_url is present for ${type}`, async () => {
        const ok = assertOk(await send(merchant, { type }));
        assert.equal(
          ok.payment_details.form_url,
          `${t.config.publicBaseUrl}/form/${ok.id}`,
          JSON.stringify(ok),
        );
        assert.equal(ok.payment_details.type, type);
        assert.equal(
          (await readOrder(merchant, ok.id)).payment_details.form_url,
          ok.payment_details.form_url,
        );
      });
    }
    for (const type of ['sim', 'card']) {
      it(`form_url is absent for ${type}`, async () => {
        const ok = assertOk(await send(merchant, { type }));
        assert.equal('form_url' in ok.payment_details, false, JSON.stringify(ok));
      });
    }
  });

  describe('error: odd bodies never cause a 5xx', () => {
    const odd: Array<Record<string, unknown>> = [
      { amount: 1e300 },
      { amount: 1e13 },
      { amount: [] },
      { amount: {} },
      { amount: true },
      { amount: null },
      { type: null },
      { type: 123 },
      { type: ['sim'] },
      { currency: 123 },
      { currency: ['RUB'] },
      { currency: null },
      { order_id: '' },
      { order_id: ' leading-space' },
      { order_id: 'nul\u0000byte' },
      { order_id: 42 },
      { client_registered_at: {} },
      { client_registered_at: '9999-99-99T99:99:99Z' },
      { client_registered_at: '1000-01-01T00:00:00Z' },
      { client_orders_count: 1e300 },
      { client_orders_count: '5' },
      { client_id: 123 },
      { client_id: 'x'.repeat(10_000) },
      { comment: 123 },
      { success_callback_url: 'http://[::1' },
      { success_callback_url: `https://example.com/${'a'.repeat(3000)}` },
      { convertToUsdt: 'yes' },
      { amountUp: 1e9 },
      { amountUp: 1_000_000, amountDown: 1_000_000 },
      { direction: 'PAYOUT' },
      { type: 'usdt_trc20' },
      { merchant_id: null },
      JSON.parse('{"__proto__":{"amount":1},"constructor":{"prototype":{"x":1}}}'),
    ];
    it('answers 200 or 4xx with the envelope for each', async () => {
      for (const fields of odd) {
        const res = await send(merchant, fields);
        assert.ok(res.statusCode === 200 || (res.statusCode >= 400 && res.statusCode < 500), res.body);
        if (res.statusCode !== 200) assert.equal(typeof res.json().message, 'string', res.body);
      }
    });
    it('a client_registered_at outside the years 0001-9999 is ignored, the order still created', async () => {
      for (const value of ['0000-01-01', '0000-06-15T10:00:00Z', '9999-12-31T23:59:59-14:00']) {
        const res = await createOrder(t.app, merchant, { client_registered_at: value });
        assert.equal(res.statusCode, 200, `${value}: ${res.body}`);
      }
    });
    it('non-object JSON bodies are 400 INVALID_JSON', async () => {
      for (const raw of ['[]', '"text"', 'null', '42', '{"amount":']) {
        const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', { raw });
        assertError(res, 400, 'INVALID_JSON');
      }
    });
  });
});
