import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq, inArray, or, sql } from 'drizzle-orm';
import { ledgerEntries } from '../../src/db/tables/ledger.js';
import { apiKeys } from '../../src/db/tables/merchants.js';
import { orders } from '../../src/db/tables/orders.js';
import { createSecretBox } from '../../src/lib/secrets.js';
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

/** docs/decisions.md section 7: every fiat `type` value (the default enabled set of a new merchant). */
const SPEC_FIAT_TYPES = [
  ...'any card sim sngs sngs_abh sngc_abh simcard nspk wire card_pdf sbp_pdf qr_smart'.split(' '),
  ...'alfa ozon vtb sber psb uralsib raiffeisen yumoney mts ak_bars sovkom wildberries'.split(' '),
  ...'solidarnost gasprom yandex tbank rshb otp'.split(' '),
  ...'qr_sber qr_alfa qr_ozon qr_gasprom qr_otp qr_vtb qr_mts wire_alfa wire_kg'.split(' '),
];

const newId = () => `m_${randomUUID().slice(0, 12)}`;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('admin API: merchants, keys and ledger adjustments', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const balanceOf = async (m: TestMerchant) => {
    const res = await merchantRequest(t.app, m, `/merchant/balance/${m.id}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { balance: number; available: number; reserved: number };
  };
  const adjust = (id: string, amount: unknown, currency = 'RUB') =>
    adminRaw(t.app, 'POST', `/admin/merchants/${id}/ledger-adjustments`, {
      currency,
      amount,
      reason: 'test adjustment',
    });
  const expectError = (res: { statusCode: number; body: string }, status: number, code: string) => {
    assert.equal(res.statusCode, status, res.body);
    const body = JSON.parse(res.body);
    assert.equal(body.success, false, res.body);
    assert.equal(body.ok, false, res.body);
    assert.equal(body.status, status, res.body);
    assert.equal(body.message, code, res.body);
    return body as { details?: { field: string; problem: string }[] };
  };

  it('create shows a 64-hex API key once and applies the defaults', async () => {
    const id = newId();
    const res = await adminRaw(t.app, 'POST', '/admin/merchants', { merchant_id: id });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.success, true, res.body);
    const data = body.data;
    assert.match(data.api_key, /^[0-9a-f]{64}$/, res.body);
    assert.equal(data.merchant_id, id, res.body);
    assert.equal(data.enabled, true, res.body);
    assert.deepEqual(data.currencies, ['RUB'], res.body);
    assert.deepEqual([...data.payment_types].sort(), [...SPEC_FIAT_TYPES].sort(), res.body);
    assert.equal(data.payin_fee_percent, '0', res.body);
    assert.equal(data.payout_fee_percent, '0', res.body);
    assert.equal(data.order_ttl_seconds, 900, res.body);
    assert.equal(data.allow_usdt, false, res.body);

    const key: string = data.api_key;
    const banks = await merchantRequest(t.app, { id, apiKey: key }, '/merchant/banks');
    assert.equal(banks.statusCode, 200, `the issued key works: ${banks.body}`);

    const one = await adminRaw(t.app, 'GET', `/admin/merchants/${id}`);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.json().data.merchant_id, id, one.body);
    assert.equal('api_key' in one.json().data, false, one.body);
    assert.equal(one.body.includes(key), false, `GET must not show the key: ${one.body}`);
    const list = await adminRaw(t.app, 'GET', '/admin/merchants');
    assert.equal(list.statusCode, 200, list.body.slice(0, 500));
    const mine = (list.json().data as { merchant_id: string }[]).find((m) => m.merchant_id === id);
    assert.ok(mine, 'the list contains the new merchant');
    assert.equal('api_key' in mine, false, JSON.stringify(mine));
    assert.equal(list.body.includes(key), false, 'the list must not show the key');
  });

  it('a taken merchant_id is 409 ALREADY_EXISTS and issues no second key', async () => {
    const m = await createMerchant(t.app);
    const res = await adminRaw(t.app, 'POST', '/admin/merchants', { merchant_id: m.id, allow_usdt: true });
    expectError(res, 409, 'ALREADY_EXISTS');
    assert.equal(res.body.includes('api_key'), false, res.body);
    const keys = await t.database.db.select().from(apiKeys).where(eq(apiKeys.merchantId, m.id));
    assert.equal(keys.length, 1, JSON.stringify(keys));
    const read = await admin<{ allow_usdt: boolean }>(t.app, 'GET', `/admin/merchants/${m.id}`);
    assert.equal(read.allow_usdt, false, JSON.stringify(read));
  });

  const badSettings: [string, Record<string, unknown>][] = [
    ['unknown currency', { currencies: ['RUB', 'XXX'] }],
    ['empty currencies', { currencies: [] }],
    ['unknown payment type', { payment_types: ['sim', 'bogus_type'] }],
    ['fee of 100', { payin_fee_percent: 100 }],
    ['fee of -1', { payin_fee_percent: -1 }],
    ['fee "100" as text', { payin_fee_percent: '100' }],
    ['payout fee of 100', { payout_fee_percent: 100 }],
    ['fee by unknown type', { payin_fee_percent_by_type: { bogus_type: 1 } }],
    ['limits min > max', { limits: { card: { min: 5000, max: 100 } } }],
    ['limits of an unknown type', { limits: { bogus_type: { min: 1 } } }],
    ['an unknown field', { unknown_setting: 1 }],
  ];
  for (const [label, settings] of badSettings) {
    it(`create with ${label} is 400 VALIDATION_ERROR and creates nothing`, async () => {
      const id = newId();
      const res = await adminRaw(t.app, 'POST', '/admin/merchants', { merchant_id: id, ...settings });
      const body = expectError(res, 400, 'VALIDATION_ERROR');
      assert.ok(Array.isArray(body.details) && body.details.length > 0, res.body);
      expectError(await adminRaw(t.app, 'GET', `/admin/merchants/${id}`), 404, 'NOT_FOUND');
    });
  }

  it('PATCH changes settings and enabled; bad settings change nothing', async () => {
    const m = await createMerchant(t.app);
    const patched = await adminRaw(t.app, 'PATCH', `/admin/merchants/${m.id}`, {
      currencies: ['RUB', 'KZT'],
      payment_types: ['sim', 'card'],
      payin_fee_percent: 1.5,
      order_ttl_seconds: 600,
      allow_usdt: true,
      limits: { card: { min: 100, max: 5000 } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const read = await admin<Record<string, unknown>>(t.app, 'GET', `/admin/merchants/${m.id}`);
    assert.deepEqual(read.currencies, ['RUB', 'KZT'], JSON.stringify(read));
    assert.deepEqual(read.payment_types, ['sim', 'card'], JSON.stringify(read));
    assert.equal(read.payin_fee_percent, '1.5', JSON.stringify(read));
    assert.equal(read.order_ttl_seconds, 600, JSON.stringify(read));
    assert.equal(read.allow_usdt, true, JSON.stringify(read));
    assert.deepEqual(read.limits, { card: { min: '100', max: '5000' } }, JSON.stringify(read));

    const bad = await adminRaw(t.app, 'PATCH', `/admin/merchants/${m.id}`, {
      payin_fee_percent: 2,
      currencies: ['XXX'],
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    const still = await admin<Record<string, unknown>>(t.app, 'GET', `/admin/merchants/${m.id}`);
    assert.equal(still.payin_fee_percent, '1.5', JSON.stringify(still));

    const off = await admin<{ enabled: boolean }>(t.app, 'PATCH', `/admin/merchants/${m.id}`, {
      enabled: false,
    });
    assert.equal(off.enabled, false, JSON.stringify(off));
    const disabled = await merchantRequest(t.app, m, '/merchant/banks');
    expectError(disabled, 403, 'DISABLED');
    const on = await admin<{ enabled: boolean }>(t.app, 'PATCH', `/admin/merchants/${m.id}`, {
      enabled: true,
    });
    assert.equal(on.enabled, true, JSON.stringify(on));
    const back = await merchantRequest(t.app, m, '/merchant/banks');
    assert.equal(back.statusCode, 200, back.body);

    expectError(
      await adminRaw(t.app, 'PATCH', `/admin/merchants/${newId()}`, { enabled: false }),
      404,
      'NOT_FOUND',
    );
  });

  it('rotating the key issues a new one and stops the old one at once', async () => {
    const m = await createMerchant(t.app);
    assert.equal((await merchantRequest(t.app, m, '/merchant/banks')).statusCode, 200);
    const res = await adminRaw(t.app, 'POST', `/admin/merchants/${m.id}/api-keys`);
    assert.equal(res.statusCode, 200, res.body);
    const fresh: string = res.json().data.api_key;
    assert.match(fresh, /^[0-9a-f]{64}$/, res.body);
    assert.notEqual(fresh, m.apiKey, res.body);
    assert.equal(res.json().data.merchant_id, m.id, res.body);

    const old = await merchantRequest(t.app, m, '/merchant/banks');
    expectError(old, 401, 'INVALID_API_KEY');
    const now = await merchantRequest(t.app, { id: m.id, apiKey: fresh }, '/merchant/banks');
    assert.equal(now.statusCode, 200, now.body);

    const rows = await t.database.db.select().from(apiKeys).where(eq(apiKeys.merchantId, m.id));
    const oldRow = rows.find((r) => r.keyDigest === sha256(m.apiKey));
    const newRow = rows.find((r) => r.keyDigest === sha256(fresh));
    assert.equal(rows.length, 2, JSON.stringify(rows));
    assert.equal(oldRow?.active, false, JSON.stringify(rows));
    assert.ok(oldRow?.revokedAt instanceof Date, JSON.stringify(rows));
    assert.equal(newRow?.active, true, JSON.stringify(rows));

    expectError(await adminRaw(t.app, 'POST', `/admin/merchants/${newId()}/api-keys`), 404, 'NOT_FOUND');
  });

  it('rotation with a grace period: both keys work until it ends, then only the new one (docs/decisions.md section 28)', async () => {
    const m = await createMerchant(t.app);
    const res = await adminRaw(t.app, 'POST', `/admin/merchants/${m.id}/api-keys`, { grace_seconds: 3600 });
    assert.equal(res.statusCode, 200, res.body);
    const fresh: string = res.json().data.api_key;
    const until = Date.parse(res.json().data.previous_key_valid_until);
    assert.ok(Math.abs(until - Date.now() - 3600_000) < 120_000, res.body);
    assert.equal(
      (await merchantRequest(t.app, m, '/merchant/banks')).statusCode,
      200,
      'old key in its grace',
    );
    const now = await merchantRequest(t.app, { id: m.id, apiKey: fresh }, '/merchant/banks');
    assert.equal(now.statusCode, 200, now.body);
    // The grace ends (moved into the past here rather than waited for); past the 1 s key cache, refused.
    await t.database.db
      .update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiKeys.keyDigest, sha256(m.apiKey)));
    await new Promise((r) => setTimeout(r, 1100));
    expectError(await merchantRequest(t.app, m, '/merchant/banks'), 401, 'INVALID_API_KEY');
    assert.equal(
      (await merchantRequest(t.app, { id: m.id, apiKey: fresh }, '/merchant/banks')).statusCode,
      200,
    );
    for (const grace of [-1, 604801, 1.5]) {
      const bad = await adminRaw(t.app, 'POST', `/admin/merchants/${m.id}/api-keys`, {
        grace_seconds: grace,
      });
      assert.equal(bad.statusCode, 400, bad.body);
    }
  });

  it('stores the key only as its SHA-256 digest and an AES-GCM ciphertext', async () => {
    const m = await createMerchant(t.app);
    const rows = await t.database.db.select().from(apiKeys).where(eq(apiKeys.merchantId, m.id));
    assert.equal(rows.length, 1, JSON.stringify(rows));
    const row = rows[0];
    assert.ok(row);
    assert.equal(row.keyDigest, sha256(m.apiKey), JSON.stringify(row));
    assert.equal(JSON.stringify(row).includes(m.apiKey), false, 'the row must not hold the key in clear');
    const sealed = Buffer.from(row.keyCiphertext, 'base64');
    assert.equal(sealed.toString('utf8').includes(m.apiKey), false, 'the ciphertext must not hold the key');
    assert.equal(sealed.toString('hex').includes(m.apiKey), false, 'the ciphertext must not hold the key');
    assert.ok(sealed.length >= 12 + 16 + m.apiKey.length, 'iv + tag + body');
    const box = createSecretBox(t.config.secretKey);
    assert.equal(box.open(row.keyCiphertext), m.apiKey, 'the ciphertext opens under the master key');
    assert.throws(() => createSecretBox('another-master-key-0123456789abcdef').open(row.keyCiphertext));
  });

  it('ledger adjustments move the balance and refuse what would overdraw it', async () => {
    const m = await createMerchant(t.app);
    const credit = await adjust(m.id, '1000.50');
    assert.equal(credit.statusCode, 200, credit.body);
    assert.equal(credit.json().data.balance, 1000.5, credit.body);
    assert.equal((await balanceOf(m)).balance, 1000.5);

    const debit = await adjust(m.id, -200.25);
    assert.equal(debit.statusCode, 200, debit.body);
    const after = await balanceOf(m);
    assert.equal(after.balance, 800.25, JSON.stringify(after));
    assert.equal(after.available, 800.25, JSON.stringify(after));

    expectError(await adjust(m.id, '-800.26'), 400, 'INSUFFICIENT_BALANCE');
    assert.equal((await balanceOf(m)).balance, 800.25, 'a refused debit changes nothing');
    for (const bad of [0, '0', '0.00', '10.123', 10.123, 'abc', '']) {
      expectError(await adjust(m.id, bad), 400, 'VALIDATION_ERROR');
    }
    expectError(await adjust(m.id, 10, 'XXX'), 400, 'VALIDATION_ERROR');
    assert.equal((await balanceOf(m)).balance, 800.25, 'refused adjustments change nothing');
    expectError(await adjust(newId(), 10), 404, 'NOT_FOUND');

    const debitAll = await adjust(m.id, '-800.25');
    assert.equal(
      debitAll.statusCode,
      200,
      `debiting exactly the available amount is allowed: ${debitAll.body}`,
    );
    assert.equal((await balanceOf(m)).balance, 0);
  });

  it('GET ledger lists the entries; sums equal the balance; every journal sums to zero', async () => {
    const m = await createMerchant(t.app, { payin_fee_percent: 2.5 });
    await addRequisite(t.app, { kind: 'phone' });
    const created = await createOrder(t.app, m, { amount: uniqueAmount(), type: 'sim' });
    assert.equal(created.statusCode, 200, created.body);
    const order = created.json() as { id: string; amountAfterFee: number };
    await admin(t.app, 'POST', `/admin/orders/${order.id}/confirm`, {});
    assert.equal((await adjust(m.id, '150.10')).statusCode, 200);
    assert.equal((await adjust(m.id, '-50.05')).statusCode, 200);

    const res = await adminRaw(t.app, 'GET', `/admin/merchants/${m.id}/ledger`);
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data as {
      entries: {
        journal_id: string;
        amount: string;
        kind: string;
        order_id: string | null;
        currency: string;
      }[];
      sums: Record<string, string>;
    };
    assert.equal(data.entries.length, 3, res.body);
    assert.deepEqual(
      data.entries.map((e) => e.kind).sort(),
      ['adjustment', 'adjustment', 'payin_credit'],
      res.body,
    );
    const credit = data.entries.find((e) => e.kind === 'payin_credit');
    assert.equal(credit?.order_id, order.id, res.body);
    assert.equal(Number(credit?.amount), order.amountAfterFee, res.body);
    const balance = await balanceOf(m);
    const expected = Math.round((order.amountAfterFee + 150.1 - 50.05) * 100) / 100;
    assert.equal(balance.balance, expected, JSON.stringify(balance));
    assert.deepEqual(Object.keys(data.sums), ['RUB'], res.body);
    assert.equal(Number(data.sums.RUB), balance.balance, res.body);

    const db = t.database.db;
    const ownOrders = db.select({ id: orders.id }).from(orders).where(eq(orders.merchantId, m.id));
    const journals = db
      .selectDistinct({ j: ledgerEntries.journalId })
      .from(ledgerEntries)
      .where(or(eq(ledgerEntries.merchantId, m.id), inArray(ledgerEntries.orderId, ownOrders)));
    const sums = await db
      .select({
        journalId: ledgerEntries.journalId,
        currency: ledgerEntries.currency,
        sum: sql<string>`sum(${ledgerEntries.amount})::text`,
        n: sql<number>`count(*)::int`,
      })
      .from(ledgerEntries)
      .where(inArray(ledgerEntries.journalId, journals))
      .groupBy(ledgerEntries.journalId, ledgerEntries.currency);
    assert.equal(new Set(sums.map((s) => s.journalId)).size, 3, JSON.stringify(sums));
    for (const s of sums) {
      assert.equal(Number(s.sum), 0, `journal ${s.journalId} ${s.currency} is off: ${JSON.stringify(sums)}`);
      assert.ok(s.n >= 2, `a journal has both sides: ${JSON.stringify(s)}`);
    }
  });
});
