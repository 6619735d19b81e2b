import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { auditLog } from '../../src/db/tables/audit.js';
import { ledgerEntries } from '../../src/db/tables/ledger.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
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

interface AdminOrder {
  id: string;
  merchant_id: string;
  status: string;
  direction: string;
  type: string;
  amount: number;
  amountAfterFee: number;
  created_at: string;
  status_reason: string | null;
  comment: string | null;
  paid_orders: string | null;
  client_paid_count: number | null;
  client_orders_count: number | null;
  events?: { from: string | null; to: string; actor: string; reason: string | null; at: string }[];
}

interface OrderPage {
  total: number;
  page: number;
  size: number;
  orders: AdminOrder[];
}

describe('admin API: orders, their lifecycle and the audit trail', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'card' });
  });
  after(() => t.close());

  const newOrder = async (m: TestMerchant, fields: Record<string, unknown> = {}) => {
    const res = await createOrder(t.app, m, { amount: uniqueAmount(), type: 'sim', ...fields });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; amountAfterFee: number };
  };
  const list = async (query: string) => {
    const res = await adminRaw(t.app, 'GET', `/admin/orders?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data as OrderPage;
  };
  const read = (id: string) => admin<AdminOrder>(t.app, 'GET', `/admin/orders/${id}`);
  const confirm = (id: string, body: unknown = {}) =>
    adminRaw(t.app, 'POST', `/admin/orders/${id}/confirm`, body);
  const cancel = (id: string, body: unknown) => adminRaw(t.app, 'POST', `/admin/orders/${id}/cancel`, body);
  const credits = (orderId: string) =>
    t.database.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.orderId, orderId), eq(ledgerEntries.kind, 'payin_credit')));
  const balance = async (m: TestMerchant) => {
    const res = await merchantRequest(t.app, m, `/merchant/balance/${m.id}`);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { balance: number }).balance;
  };
  const expectError = (res: { statusCode: number; body: string }, status: number, code: string) => {
    assert.equal(res.statusCode, status, res.body);
    const body = JSON.parse(res.body);
    assert.deepEqual(
      { success: body.success, ok: body.ok, status: body.status, message: body.message },
      { success: false, ok: false, status, message: code },
      res.body,
    );
  };

  it('GET /admin/orders filters by merchant, status, direction and type, and pages', async () => {
    const m = await createMerchant(t.app);
    const o1 = await newOrder(m, { type: 'sim' });
    const o2 = await newOrder(m, { type: 'card' });
    const o3 = await newOrder(m, { type: 'sim' });
    const o4 = await newOrder(m, { type: 'sim' });
    const o5 = await newOrder(m, { type: 'card' });
    const all = [o1, o2, o3, o4, o5].map((o) => o.id);
    assert.equal((await confirm(o1.id)).statusCode, 200);
    assert.equal((await cancel(o2.id, { reason: 'test' })).statusCode, 200);

    const mine = await list(`merchant_id=${m.id}`);
    assert.equal(mine.total, 5, JSON.stringify(mine));
    assert.deepEqual(mine.orders.map((o) => o.id).sort(), [...all].sort(), JSON.stringify(mine));
    assert.ok(
      mine.orders.every((o) => o.merchant_id === m.id),
      JSON.stringify(mine),
    );
    const times = mine.orders.map((o) => Date.parse(o.created_at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first',
    );

    const ids = (p: OrderPage) => p.orders.map((o) => o.id).sort();
    const success = await list(`merchant_id=${m.id}&status=success`);
    assert.equal(success.total, 1, JSON.stringify(success));
    assert.deepEqual(ids(success), [o1.id], JSON.stringify(success));
    const failed = await list(`merchant_id=${m.id}&status=error`);
    assert.deepEqual(ids(failed), [o2.id], JSON.stringify(failed));
    const pending = await list(`merchant_id=${m.id}&status=pending`);
    assert.deepEqual(ids(pending), [o3.id, o4.id, o5.id].sort(), JSON.stringify(pending));
    const cards = await list(`merchant_id=${m.id}&type=card`);
    assert.deepEqual(ids(cards), [o2.id, o5.id].sort(), JSON.stringify(cards));
    const pendingCards = await list(`merchant_id=${m.id}&type=card&status=pending`);
    assert.deepEqual(ids(pendingCards), [o5.id], JSON.stringify(pendingCards));
    const payins = await list(`merchant_id=${m.id}&direction=PAYIN`);
    assert.equal(payins.total, 5, JSON.stringify(payins));
    const payouts = await list(`merchant_id=${m.id}&direction=PAYOUT`);
    assert.deepEqual(
      { total: payouts.total, n: payouts.orders.length },
      { total: 0, n: 0 },
      JSON.stringify(payouts),
    );
    const other = await list(`merchant_id=m_${randomUUID().slice(0, 12)}`);
    assert.equal(other.total, 0, JSON.stringify(other));
    assert.ok((await list('size=1')).total >= 5, 'without merchant_id every merchant counts');

    const seen: string[] = [];
    for (const [page, expected] of [
      [1, 2],
      [2, 2],
      [3, 1],
      [4, 0],
    ] as const) {
      const p = await list(`merchant_id=${m.id}&size=2&page=${page}`);
      assert.deepEqual(
        { total: p.total, page: p.page, size: p.size, n: p.orders.length },
        { total: 5, page, size: 2, n: expected },
        JSON.stringify(p),
      );
      seen.push(...p.orders.map((o) => o.id));
    }
    assert.deepEqual([...seen].sort(), [...all].sort(), 'the pages together hold each order once');
    assert.deepEqual(
      seen,
      mine.orders.map((o) => o.id),
      'pages follow the list order',
    );

    for (const bad of ['status=paid', 'direction=IN', 'size=0', 'size=201', 'page=0', 'from=yesterday']) {
      expectError(await adminRaw(t.app, 'GET', `/admin/orders?${bad}`), 400, 'VALIDATION_ERROR');
    }
  });

  it('GET /admin/orders/{id} shows the timeline, paid_orders and comment', async () => {
    const m = await createMerchant(t.app);
    const o = await newOrder(m, { client_paid_count: 10, client_orders_count: 20, comment: 'VIP client' });
    const pending = await read(o.id);
    assert.equal(pending.id, o.id, JSON.stringify(pending));
    assert.equal(pending.merchant_id, m.id, JSON.stringify(pending));
    assert.equal(pending.paid_orders, '10/20', JSON.stringify(pending));
    assert.equal(pending.comment, 'VIP client', JSON.stringify(pending));
    assert.equal(pending.events?.length, 1, JSON.stringify(pending));
    assert.equal(pending.events?.[0]?.to, 'pending', JSON.stringify(pending));
    assert.equal(pending.events?.[0]?.from, null, JSON.stringify(pending));
    assert.match(pending.events?.[0]?.actor ?? '', new RegExp(m.id), JSON.stringify(pending));

    assert.equal((await cancel(o.id, { reason: 'client gave up' })).statusCode, 200);
    const failed = await read(o.id);
    assert.equal(failed.status, 'error', JSON.stringify(failed));
    assert.equal(failed.status_reason, 'client gave up', JSON.stringify(failed));
    const ev = failed.events?.[1];
    assert.equal(failed.events?.length, 2, JSON.stringify(failed));
    assert.deepEqual(
      { from: ev?.from, to: ev?.to, reason: ev?.reason },
      {
        from: 'pending',
        to: 'error',
        reason: 'client gave up',
      },
    );
    assert.match(ev?.actor ?? '', /admin-token/, JSON.stringify(failed));
    assert.ok(Date.parse(ev?.at ?? '') >= Date.parse(failed.events?.[0]?.at ?? ''), JSON.stringify(failed));

    const plain = await read((await newOrder(m)).id);
    assert.equal(plain.paid_orders, null, JSON.stringify(plain));
    assert.equal(plain.comment, null, JSON.stringify(plain));
  });

  it('confirm moves pending to success and credits amountAfterFee once', async () => {
    const m = await createMerchant(t.app, { payin_fee_percent: 2.5 });
    const o = await newOrder(m);
    const res = await confirm(o.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'success', res.body);
    const rows = await credits(o.id);
    const mineRows = rows.filter((r) => r.merchantId === m.id);
    assert.equal(mineRows.length, 1, JSON.stringify(rows));
    assert.equal(Number(mineRows[0]?.amount), o.amountAfterFee, JSON.stringify(rows));
    assert.equal(await balance(m), o.amountAfterFee);
    const detail = await read(o.id);
    assert.deepEqual(
      detail.events?.map((e) => e.to),
      ['pending', 'success'],
      JSON.stringify(detail),
    );
    assert.match(detail.events?.[1]?.actor ?? '', /admin-token/, JSON.stringify(detail));

    expectError(await confirm(o.id), 409, 'ORDER_STATE_CONFLICT');
    expectError(await confirm(o.id, { reason: 'again' }), 409, 'ORDER_STATE_CONFLICT');
    expectError(await cancel(o.id, { reason: 'too late' }), 409, 'ORDER_STATE_CONFLICT');
    assert.equal((await read(o.id)).status, 'success');
    assert.equal((await credits(o.id)).filter((r) => r.merchantId === m.id).length, 1, 'credited once');
    assert.equal(await balance(m), o.amountAfterFee);
  });

  it('cancel needs a reason and moves pending to error only', async () => {
    const m = await createMerchant(t.app);
    const o = await newOrder(m);
    for (const body of [{}, { reason: '' }, { reason: 'x'.repeat(501) }]) {
      expectError(await cancel(o.id, body), 400, 'VALIDATION_ERROR');
    }
    assert.equal((await read(o.id)).status, 'pending', 'a refused cancel changes nothing');
    const res = await cancel(o.id, { reason: 'duplicate payment' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'error', res.body);
    assert.equal(res.json().data.status_reason, 'duplicate payment', res.body);
    expectError(await cancel(o.id, { reason: 'again' }), 409, 'ORDER_STATE_CONFLICT');
    assert.equal((await credits(o.id)).length, 0, 'a cancelled order credits nothing');
    assert.equal(await balance(m), 0);
  });

  it('confirming an error order needs a reason (late payment) and credits once', async () => {
    const m = await createMerchant(t.app, { payin_fee_percent: 1 });
    const o = await newOrder(m);
    assert.equal((await cancel(o.id, { reason: 'expired by hand' })).statusCode, 200);
    expectError(await confirm(o.id), 400, 'VALIDATION_ERROR');
    assert.equal((await read(o.id)).status, 'error', 'a refused confirm changes nothing');
    assert.equal(await balance(m), 0);

    const res = await confirm(o.id, { reason: 'payment found in bank statement' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'success', res.body);
    const detail = await read(o.id);
    assert.deepEqual(
      detail.events?.map((e) => [e.from, e.to]),
      [
        [null, 'pending'],
        ['pending', 'error'],
        ['error', 'success'],
      ],
      JSON.stringify(detail),
    );
    assert.equal(detail.events?.[2]?.reason, 'payment found in bank statement', JSON.stringify(detail));
    expectError(await confirm(o.id, { reason: 'twice' }), 409, 'ORDER_STATE_CONFLICT');
    const audit = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.targetId, o.id))
      .orderBy(auditLog.id);
    assert.deepEqual(
      audit.map((r) => [r.action, (r.after as { reason?: string } | null)?.reason]),
      [
        ['order.cancel', 'expired by hand'],
        ['order.confirm_late', 'payment found in bank statement'],
      ],
      JSON.stringify(audit),
    );
    const rows = (await credits(o.id)).filter((r) => r.merchantId === m.id);
    assert.equal(rows.length, 1, JSON.stringify(rows));
    assert.equal(await balance(m), o.amountAfterFee);
  });

  it('confirm takes a POST without a body (its body schema is optional)', async () => {
    const o = await newOrder(await createMerchant(t.app));
    const res = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${o.id}/confirm`,
      headers: { authorization: `Bearer ${t.config.adminToken}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'success', res.body);
  });

  it('an unknown order is 404 ORDER_NOT_FOUND', async () => {
    const ids = [`lux${randomUUID()}`, 'no-such-order', `lux01993328-a828-7581-b3a9-${randomInt(1e11)}`];
    for (const id of ids) {
      expectError(await adminRaw(t.app, 'GET', `/admin/orders/${id}`), 404, 'ORDER_NOT_FOUND');
      expectError(await confirm(id), 404, 'ORDER_NOT_FOUND');
      expectError(await cancel(id, { reason: 'x' }), 404, 'ORDER_NOT_FOUND');
    }
  });

  it('every admin change writes an audit row without any API key', async () => {
    const m = await createMerchant(t.app);
    await admin(t.app, 'PATCH', `/admin/merchants/${m.id}`, { payin_fee_percent: 1.5 });
    const rotated = await admin<{ api_key: string }>(t.app, 'POST', `/admin/merchants/${m.id}/api-keys`);
    const req = await addRequisite(t.app, { currency: 'ARS' });
    await admin(t.app, 'PATCH', `/admin/requisites/${req.id}`, { enabled: false });
    const quote = Array.from({ length: 5 }, () => String.fromCharCode(65 + randomInt(26))).join('');
    await admin(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote, rate: '91.5' });
    await admin(t.app, 'POST', `/admin/merchants/${m.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 500,
      reason: 'bonus',
    });
    const key = { id: m.id, apiKey: rotated.api_key };
    const paid = await newOrder(key);
    await admin(t.app, 'POST', `/admin/orders/${paid.id}/confirm`, {});
    const dropped = await newOrder(key);
    await admin(t.app, 'POST', `/admin/orders/${dropped.id}/cancel`, { reason: 'fraud' });

    const targets = [m.id, req.id, `USDT/${quote}`, paid.id, dropped.id];
    const rows = await t.database.db
      .select()
      .from(auditLog)
      .where(inArray(auditLog.targetId, targets))
      .orderBy(auditLog.id);
    const text = JSON.stringify(rows);
    const find = (action: string, targetId: string) => {
      const found = rows.filter((r) => r.action === action && r.targetId === targetId);
      assert.equal(found.length, 1, `one ${action} row for ${targetId}: ${text}`);
      const row = found[0];
      assert.ok(row);
      assert.equal(row.actor, 'admin-token', JSON.stringify(row));
      assert.ok(row.ip && row.ip.length > 0, JSON.stringify(row));
      return row as typeof row & {
        before: Record<string, unknown> | null;
        after: Record<string, unknown> | null;
      };
    };
    assert.equal(rows.length, 9, text);

    const created = find('merchant.create', m.id);
    assert.equal(created.after?.merchant_id, m.id, text);
    const updated = find('merchant.update', m.id);
    assert.equal(updated.before?.payin_fee_percent, '0', text);
    assert.equal(updated.after?.payin_fee_percent, '1.5', text);
    find('merchant.rotate_key', m.id);
    const reqCreated = find('requisite.create', req.id);
    assert.equal(reqCreated.after?.id, req.id, text);
    const reqUpdated = find('requisite.update', req.id);
    assert.equal(reqUpdated.before?.enabled, true, text);
    assert.equal(reqUpdated.after?.enabled, false, text);
    assert.equal(text.includes(req.address), false, `audit rows mask the requisite address: ${text}`);
    const rate = find('rate.set', `USDT/${quote}`);
    assert.equal(Number(rate.after?.rate), 91.5, text);
    const adjusted = find('ledger.adjust', m.id);
    assert.equal(adjusted.before?.balance, 0, text);
    assert.equal(adjusted.after?.balance, 500, text);
    const confirmed = find('order.confirm', paid.id);
    assert.deepEqual([confirmed.before?.status, confirmed.after?.status], ['pending', 'success'], text);
    const cancelled = find('order.cancel', dropped.id);
    assert.deepEqual([cancelled.before?.status, cancelled.after?.status], ['pending', 'error'], text);
    assert.equal(cancelled.after?.reason, 'fraud', text);

    for (const secret of [m.apiKey, rotated.api_key]) {
      assert.equal(text.includes(secret), false, 'audit rows of the merchant hold no key');
      const anywhere = await t.database.db
        .select({ id: auditLog.id })
        .from(auditLog)
        .where(
          sql`coalesce(${auditLog.before}::text, '') || coalesce(${auditLog.after}::text, '') LIKE ${`%${secret}%`}`,
        );
      assert.equal(anywhere.length, 0, `no audit row anywhere holds the key: ${JSON.stringify(anywhere)}`);
    }
  });
});
