// The merchant read endpoints (docs/decisions.md sections 1, 2 and 12; docs/api.md "GET /merchant/banks").
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

type Json = Record<string, unknown>;
const TTL = 3 * 86_400; // long, so that another process's expiry sweep never meets these orders
const CB = 'https://shop.example/callback';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function expectError(res: LightMyRequestResponse, status: number, message: string) {
  assert.equal(res.statusCode, status, res.body);
  const { details: _details, ...envelope } = res.json();
  assert.deepEqual(envelope, { success: false, ok: false, status, message }, res.body);
}

/** Asserts the given fields of `obj` (and only those) equal `expected`. */
function expectFields(obj: Json, expected: Json) {
  const picked = Object.fromEntries(Object.keys(expected).map((k) => [k, obj[k]]));
  assert.deepEqual(picked, expected, JSON.stringify(obj));
}

/** A 200 answer whose payload is in `data` and also at the top level with ok/success true. */
function expectPayload(res: LightMyRequestResponse): Json {
  assert.equal(res.statusCode, 200, res.body);
  const { success, ok, data, ...top } = res.json();
  assert.equal(success, true, res.body);
  assert.equal(ok, true, res.body);
  assert.deepEqual(top, data, res.body);
  return data;
}

describe('merchant read endpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'card' });
  });
  after(() => t.close());

  const get = (m: TestMerchant, url: string) => merchantRequest(t.app, m, url);
  const newMerchant = (settings: Json = {}) => createMerchant(t.app, { order_ttl_seconds: TTL, ...settings });
  async function order(app: TestApp['app'], m: TestMerchant, fields: Json = {}): Promise<Json> {
    const res = await createOrder(app, m, fields);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  describe('GET /merchant/order/{id}', () => {
    let m: TestMerchant;
    let other: TestMerchant;
    before(async () => {
      m = await newMerchant({ payin_fee_percent: 2.5 });
      other = await newMerchant();
    });
    const read = (id: string, as = m) => get(as, `/merchant/order/${encodeURIComponent(id)}`);

    describe('happy', () => {
      it('by internal id and by external id: the docs/decisions.md section 12 fields, in data and on top', async () => {
        const amount = uniqueAmount();
        const ext = `ext-${randomUUID()}`;
        const given = { order_id: ext, comment: 'c1', client_id: 'k7', success_callback_url: CB };
        const created = await order(t.app, m, { amount, ...given });
        const res = await read(String(created.id));
        const data = expectPayload(res);
        const { ok: _ok, remainingSeconds: _r, ...answer } = created;
        const expected = { ...answer, ...given, payment_id: ext, type: 'sim', direction: 'PAYIN', amount };
        const more = {
          status: 'pending',
          merchantFeePercent: 2.5,
          convertToUsdt: false,
          receiptStatus: null,
        };
        expectFields(data, { ...expected, ...more, amountAfterFee: Number((amount * 0.975).toFixed(2)) });
        assert.match(String(data.created_at), ISO_UTC, res.body);
        assert.ok(Math.abs(Date.parse(String(data.created_at)) - Date.now()) < 60_000, res.body);
        const remaining = Number(data.remainingSeconds);
        assert.ok(remaining > TTL - 60 && remaining <= TTL, res.body);
        const byExternal = expectPayload(await read(ext));
        assert.deepEqual({ ...byExternal, remainingSeconds: 0 }, { ...data, remainingSeconds: 0 });
      });

      it('without order_id: external id = internal id; optional fields are null', async () => {
        const created = await order(t.app, m);
        const data = expectPayload(await read(String(created.id)));
        const nulls = { success_callback_url: null, comment: null, client_id: null };
        expectFields(data, { order_id: created.id, payment_id: created.id, ...nulls });
      });

      it('an external id with reserved characters, URL-encoded', async () => {
        const ext = `a b/ц?#%-${randomUUID()}`;
        const created = await order(t.app, m, { order_id: ext });
        expectFields(expectPayload(await read(ext)), { id: created.id, order_id: ext });
      });

      it('an order_id of 128 characters (the maximum) reads back by external id', async () => {
        const ext = `${randomUUID()}-`.padEnd(128, 'z');
        const created = await order(t.app, m, { order_id: ext });
        expectFields(expectPayload(await read(ext)), { id: created.id });
      });

      it('remainingSeconds disappears after confirm (success) and after cancel (error)', async () => {
        const confirmed = await order(t.app, m, { type: 'card' });
        const cancelled = await order(t.app, m);
        await admin(t.app, 'POST', `/admin/orders/${confirmed.id}/confirm`, {});
        await admin(t.app, 'POST', `/admin/orders/${cancelled.id}/cancel`, { reason: 'test' });
        for (const [id, status] of [`${confirmed.id} success`, `${cancelled.id} error`].map((x) =>
          x.split(' '),
        )) {
          const res = await read(String(id));
          expectFields(expectPayload(res), { status });
          assert.equal('remainingSeconds' in res.json(), false, res.body);
          assert.equal('remainingSeconds' in res.json().data, false, res.body);
        }
      });
    });

    describe('error', () => {
      it('unknown internal id -> 404 ORDER_NOT_FOUND', async () => {
        expectError(await read('lux00000000-0000-7000-8000-000000000000'), 404, 'ORDER_NOT_FOUND');
      });
      it('unknown external id -> 404 ORDER_NOT_FOUND', async () => {
        expectError(await read(`nope-${randomUUID()}`), 404, 'ORDER_NOT_FOUND');
      });
      it('an id over 200 characters -> 400 VALIDATION_ERROR in the error envelope', async () => {
        expectError(await read('x'.repeat(201)), 400, 'VALIDATION_ERROR');
      });
    });

    describe('security', () => {
      it("another merchant's internal id -> 403 ORDER_FORBIDDEN, without its data", async () => {
        const theirs = await order(t.app, other, { order_id: `secret-${randomUUID()}` });
        expectError(await read(String(theirs.id)), 403, 'ORDER_FORBIDDEN');
      });
      it("another merchant's external id -> 404 ORDER_NOT_FOUND", async () => {
        const ext = `theirs-${randomUUID()}`;
        await order(t.app, other, { order_id: ext });
        expectError(await read(ext), 404, 'ORDER_NOT_FOUND');
      });
      it('the same external id at two merchants: each reads its own order', async () => {
        const ext = `shared-${randomUUID()}`;
        const mine = await order(t.app, m, { order_id: ext });
        const theirs = await order(t.app, other, { order_id: ext });
        expectFields(expectPayload(await read(ext)), { id: mine.id });
        expectFields(expectPayload(await read(ext, other)), { id: theirs.id });
      });
    });
  });

  describe('GET /merchant/orders', () => {
    // A clock of its own: orders at known UTC times, two days ahead (never met by expiry sweeps).
    const clock = manualClock();
    let tc: TestApp;
    let m: TestMerchant;
    let other: TestMerchant;
    let day: Date;
    let ids: Record<'o1' | 'o2' | 'o3' | 'o4' | 'yesterday' | 'theirs', string>;
    const at = (hhmmss: string, offsetDays = 0) =>
      new Date(day.getTime() + offsetDays * 86_400_000 + Date.parse(`1970-01-01T${hhmmss}Z`));
    const utc = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
    const list = (query: string, as = m) =>
      merchantRequest(tc.app, as, `/merchant/orders?merchant_id=${as.id}${query ? `&${query}` : ''}`);
    const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
    /** The ids listed for `query`, asserted to be `expected` (in this order). */
    async function expectIds(query: string, expected: string[], as = m) {
      const res = await list(query, as);
      const orders = expectPayload(res).orders as Json[];
      const got = orders.map((o) => o.id);
      assert.deepEqual(got, expected, res.body);
    }
    async function orderAt(time: Date, as: TestMerchant, fields: Json = {}): Promise<string> {
      clock.set(time.getTime());
      return String((await order(tc.app, as, fields)).id);
    }

    before(async () => {
      tc = await startTestApp({ clock });
      const now = new Date();
      day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 2));
      m = await newMerchant();
      other = await newMerchant();
      ids = {
        yesterday: await orderAt(at('23:59:59', -1), m),
        o1: await orderAt(at('08:00:00'), m),
        o2: await orderAt(at('09:00:00'), m, { type: 'card' }),
        theirs: await orderAt(at('09:30:00'), other),
        o3: await orderAt(at('10:00:00'), m),
        o4: await orderAt(at('11:00:00'), m),
      };
      await admin(tc.app, 'POST', `/admin/orders/${ids.o2}/confirm`, {});
      await admin(tc.app, 'POST', `/admin/orders/${ids.o3}/cancel`, { reason: 'test' });
      clock.set(at('12:00:00').getTime());
    });
    after(() => tc.close());

    describe('happy', () => {
      it('default: the current UTC day, newest first, {total,page,size,orders} in data and on top', async () => {
        const res = await list('');
        const data = expectPayload(res);
        assert.deepEqual(Object.keys(data).sort(), ['orders', 'page', 'size', 'total'], res.body);
        expectFields(data, { total: 4, page: 1, size: 10 });
        const view = (data.orders as Json[]).map((o) => [o.id, o.status, o.created_at, o.remainingSeconds]);
        const iso = (hhmmss: string) => at(hhmmss).toISOString();
        const expected = [
          [ids.o4, 'pending', iso('11:00:00'), TTL - 3600],
          [ids.o3, 'error', iso('10:00:00'), undefined],
          [ids.o2, 'success', iso('09:00:00'), undefined],
          [ids.o1, 'pending', iso('08:00:00'), TTL - 4 * 3600],
        ];
        assert.deepEqual(view, expected, res.body);
      });

      it('pages with page and size', async () => {
        const pages = [[ids.o4, ids.o3], [ids.o2, ids.o1], []];
        for (const [i, expected] of pages.entries()) {
          const res = await list(q({ page: String(i + 1), size: '2' }));
          const data = expectPayload(res);
          expectFields(data, { total: 4, page: i + 1, size: 2 });
          assert.deepEqual(
            (data.orders as Json[]).map((o) => o.id),
            expected,
            res.body,
          );
        }
        expectFields(expectPayload(await list('size=100')), { size: 100, total: 4 });
      });

      it('filters by order_status, type and direction', async () => {
        await expectIds('order_status=success', [ids.o2]);
        await expectIds('order_status=error', [ids.o3]);
        await expectIds('order_status=pending', [ids.o4, ids.o1]);
        await expectIds('type=card', [ids.o2]);
        await expectIds('type=sim&order_status=pending', [ids.o4, ids.o1]);
        await expectIds('direction=PAYIN', [ids.o4, ids.o3, ids.o2, ids.o1]);
        expectFields(expectPayload(await list('direction=PAYOUT')), { total: 0, orders: [] });
      });

      it("start_date / end_date ('YYYY-MM-DD HH:MM:SS', UTC)", async () => {
        const range = (from: Date, to?: Date) =>
          q({ start_date: utc(from), ...(to ? { end_date: utc(to) } : {}) });
        const all = [ids.o4, ids.o3, ids.o2, ids.o1, ids.yesterday];
        await expectIds(range(at('08:30:00'), at('10:30:00')), [ids.o3, ids.o2]);
        await expectIds(range(at('00:00:00', -1), at('23:59:59')), all);
        await expectIds(range(at('10:30:00')), [ids.o4]);
        await expectIds(range(at('00:00:00', -1), at('23:59:58', -1)), []);
      });
    });

    describe('error', () => {
      it('size over 100, size 0, page 0, page not a number -> 400 VALIDATION_ERROR', async () => {
        for (const query of ['size=101', 'size=0', 'page=0', 'page=abc']) {
          expectError(await list(query), 400, 'VALIDATION_ERROR');
        }
      });
      it('unknown order_status or direction -> 400 VALIDATION_ERROR', async () => {
        expectError(await list('order_status=done'), 400, 'VALIDATION_ERROR');
        expectError(await list('direction=SIDEWAYS'), 400, 'VALIDATION_ERROR');
      });
      for (const field of ['start_date', 'end_date']) {
        it(`${field} in another format -> 400 VALIDATION_ERROR naming it`, async () => {
          for (const bad of ['2024-01-15T10:00:00Z', '15.01.2024 10:00:00', 'now', '2024-01-15 10:00']) {
            const res = await list(q({ [field]: bad }));
            expectError(res, 400, 'VALIDATION_ERROR');
            assert.equal(res.json().details?.[0]?.field, field, res.body);
          }
        });
      }
      it('an impossible date (2024-02-30 10:00:00, 25:00:00) -> 400 VALIDATION_ERROR', async () => {
        expectError(await list(q({ start_date: '2024-02-30 10:00:00' })), 400, 'VALIDATION_ERROR');
        expectError(await list(q({ end_date: '2024-01-15 25:00:00' })), 400, 'VALIDATION_ERROR');
      });
    });

    describe('security', () => {
      it("lists only the merchant's own orders", async () => {
        const range = q({ start_date: utc(at('00:00:00', -1)), end_date: utc(at('23:59:59')) });
        await expectIds(range, [ids.o4, ids.o3, ids.o2, ids.o1, ids.yesterday]);
        await expectIds(range, [ids.theirs], other);
      });
      it("another merchant's merchant_id -> 400 INVALID_MERCHANT_ID", async () => {
        const res = await merchantRequest(tc.app, m, `/merchant/orders?merchant_id=${other.id}`);
        expectError(res, 400, 'INVALID_MERCHANT_ID');
      });
    });
  });

  describe('GET /merchant/balance/{merchant_id}', () => {
    const balance = (m: TestMerchant, id = m.id) => get(m, `/merchant/balance/${id}`);
    const adjust = (m: TestMerchant, currency: string, amount: number, reason = 'x') =>
      adminRaw(t.app, 'POST', `/admin/merchants/${m.id}/ledger-adjustments`, { currency, amount, reason });

    describe('happy', () => {
      it('a new merchant has zero balance; fields in data and on top', async () => {
        const m = await newMerchant();
        const data = expectPayload(await balance(m));
        const zero = { balance: 0, reserved: 0, available: 0 };
        const expected = { merchant_id: m.id, ...zero, currency: 'RUB', usdtBalance: 0, allowUsdt: false };
        assert.deepEqual(
          data,
          { ...expected, balances: [{ currency: 'RUB', ...zero }] },
          JSON.stringify(data),
        );
      });

      it('equals the sum of an adjustment and a confirmed PAYIN (pending and cancelled do not count)', async () => {
        const m = await newMerchant({ payin_fee_percent: 3 });
        const adj = await adjust(m, 'RUB', 1000);
        assert.equal(adj.statusCode, 200, adj.body);
        const amount = uniqueAmount();
        const paid = await order(t.app, m, { amount });
        await order(t.app, m);
        const cancelled = await order(t.app, m);
        await admin(t.app, 'POST', `/admin/orders/${paid.id}/confirm`, {});
        await admin(t.app, 'POST', `/admin/orders/${cancelled.id}/cancel`, { reason: 'x' });
        assert.equal(paid.amountAfterFee, Number((amount * 0.97).toFixed(2)), JSON.stringify(paid));
        const expected = Number((1000 + Number(paid.amountAfterFee)).toFixed(2));
        const figures = { balance: expected, reserved: 0, available: expected };
        const data = expectPayload(await balance(m));
        expectFields(data, { ...figures, balances: [{ currency: 'RUB', ...figures }] });
      });

      it('main currency, allowUsdt and usdtBalance follow the merchant', async () => {
        const m = await newMerchant({ currencies: ['KZT', 'RUB'], allow_usdt: true });
        assert.equal((await adjust(m, 'KZT', 500)).statusCode, 200);
        assert.equal((await adjust(m, 'USDT', 12.5)).statusCode, 200);
        const data = expectPayload(await balance(m));
        expectFields(data, { currency: 'KZT', balance: 500, usdtBalance: 12.5, allowUsdt: true });
        const byCurrency = Object.fromEntries((data.balances as Json[]).map((b) => [b.currency, b.balance]));
        assert.deepEqual(byCurrency, { KZT: 500, RUB: 0, USDT: 12.5 }, JSON.stringify(data));
      });
    });

    describe('error', () => {
      it('a debit below the available balance -> 400 INSUFFICIENT_BALANCE, nothing changes', async () => {
        const m = await newMerchant();
        assert.equal((await adjust(m, 'RUB', 1000)).statusCode, 200);
        expectError(await adjust(m, 'RUB', -1000.01), 400, 'INSUFFICIENT_BALANCE');
        expectFields(expectPayload(await balance(m)), { balance: 1000, available: 1000 });
        const debit = await adjust(m, 'RUB', -400);
        assert.equal(debit.statusCode, 200, debit.body);
        expectFields(expectPayload(await balance(m)), { balance: 600, available: 600 });
      });
      it('an unknown merchant id in the path -> 400 INVALID_MERCHANT_ID', async () => {
        const m = await newMerchant();
        expectError(await balance(m, `m_${randomUUID().slice(0, 12)}`), 400, 'INVALID_MERCHANT_ID');
      });
    });

    describe('security', () => {
      it("another merchant's balance -> 400 INVALID_MERCHANT_ID, without its figures", async () => {
        const m = await newMerchant();
        const rich = await newMerchant();
        assert.equal((await adjust(rich, 'RUB', 777)).statusCode, 200);
        const res = await balance(m, rich.id);
        expectError(res, 400, 'INVALID_MERCHANT_ID');
        assert.equal(res.body.includes('777'), false, res.body);
      });
    });
  });

  describe('GET /merchant/banks', () => {
    let m: TestMerchant;
    const code = `t_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const name = `Test Bank ${code}`;
    before(async () => {
      m = await newMerchant();
    });
    after(async () => {
      await adminRaw(t.app, 'PATCH', `/admin/banks/${code}`, { enabled: true });
    });
    async function banks(): Promise<{ count: number; data: { code: string; name: string }[] }> {
      const res = await get(m, '/merchant/banks');
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['count', 'data', 'success'], res.body);
      assert.equal(body.success, true, res.body);
      assert.equal(body.count, body.data.length, res.body);
      return body;
    }

    describe('happy', () => {
      it('{success, count, data:[{code, name}]} with Sberbank', async () => {
        const body = await banks();
        const text = JSON.stringify(body);
        assert.ok(body.count > 0, text);
        for (const bank of body.data) {
          assert.deepEqual(Object.keys(bank).sort(), ['code', 'name'], text);
          assert.ok(typeof bank.code === 'string' && typeof bank.name === 'string', text);
        }
        const sber = body.data.some((b) => b.name === 'Sberbank');
        assert.ok(sber, text);
      });

      it('a bank added by an operator appears; disabled it disappears; re-enabled it is back', async () => {
        const has = async () => (await banks()).data.some((b) => b.code === code && b.name === name);
        assert.equal(await has(), false);
        await admin(t.app, 'POST', '/admin/banks', { code, name });
        assert.equal(await has(), true);
        await admin(t.app, 'PATCH', `/admin/banks/${code}`, { enabled: false });
        assert.equal(await has(), false);
        await admin(t.app, 'PATCH', `/admin/banks/${code}`, { enabled: true });
        assert.equal(await has(), true);
      });
    });

    describe('error', () => {
      it('POST /merchant/banks (no such route) -> 404 NOT_FOUND', async () => {
        const res = await merchantRequest(t.app, m, '/merchant/banks', { method: 'POST', body: {} });
        expectError(res, 404, 'NOT_FOUND');
      });
    });

    describe('security', () => {
      it('needs the merchant signature: no headers -> 401, disabled merchant -> 403', async () => {
        expectError(await t.app.inject({ method: 'GET', url: '/merchant/banks' }), 401, 'INVALID_API_KEY');
        const off = await newMerchant();
        await admin(t.app, 'PATCH', `/admin/merchants/${off.id}`, { enabled: false });
        expectError(await get(off, '/merchant/banks'), 403, 'DISABLED');
      });
    });
  });
});
