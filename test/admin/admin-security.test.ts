import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq, inArray } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { auditLog } from '../../src/db/tables/audit.js';
import { requisites } from '../../src/db/tables/requisites.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT';

const BAD_AUTH: [string, Record<string, string>][] = [
  ['no Authorization', {}],
  ['a wrong token', { authorization: 'Bearer wrong-token-0123456789abcdef0123' }],
  ['a token one character short', { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }],
  ['an empty bearer', { authorization: 'Bearer ' }],
  ['Basic credentials', { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` }],
  ['the token without a scheme', { authorization: ADMIN_TOKEN }],
  ['the token in upper case', { authorization: `Bearer ${ADMIN_TOKEN.toUpperCase()}` }],
  ['the token in x-api-key', { 'x-api-key': ADMIN_TOKEN }],
];

/** Signs of internals that must never reach a client: stack frames, file paths, SQL, driver errors. */
const LEAKS = [
  /\bat\s+\S+\s+\(/,
  /\bat\s+(async\s+)?\S*[/\\]\S+:\d+/,
  /[/\\](work|src|node_modules)[/\\]/,
  /\.(ts|js|mjs):\d+/,
  /\bselect\b[\s\S]*\bfrom\b/i,
  /\binsert into\b|\bupdate\s+"|\bdelete from\b/i,
  /syntax error|invalid input syntax|operator does not exist|violates|duplicate key|relation "/i,
  /drizzle|pglite|postgres|"stack"/i,
];

function assertCleanError(res: LightMyRequestResponse, label: string): void {
  const text = res.body;
  for (const re of LEAKS) assert.doesNotMatch(text, re, `${label}: the answer leaks internals: ${text}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  assert.equal(body.success, false, `${label}: ${text}`);
  assert.equal(body.ok, false, `${label}: ${text}`);
  assert.equal(body.status, res.statusCode, `${label}: ${text}`);
  assert.match(String(body.message), /^[A-Z_]+$/, `${label}: ${text}`);
  const allowed = new Set(['success', 'ok', 'status', 'message', 'details', 'error']);
  assert.deepEqual(
    Object.keys(body).filter((k) => !allowed.has(k)),
    [],
    `${label}: only envelope fields: ${text}`,
  );
}

function expectError(res: LightMyRequestResponse, status: number, code: string, label = ''): void {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  assert.equal(res.json().message, code, `${label} ${res.body}`);
  assertCleanError(res, label);
}

describe('admin API: authentication and hardening', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let requisiteId: string;
  let orderId: string;
  const ghostMerchant = `m_${randomUUID().slice(0, 12)}`;
  const ghostBank = `zz_${randomInt(1e9)}`;
  const ghostQuote = Array.from({ length: 5 }, () => String.fromCharCode(65 + randomInt(26))).join('');

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    requisiteId = (await addRequisite(t.app, { currency: 'ARS' })).id;
    await addRequisite(t.app, { kind: 'phone' });
    const order = await createOrder(t.app, merchant, { amount: uniqueAmount() });
    assert.equal(order.statusCode, 200, order.body);
    orderId = order.json().id;
  });
  after(() => t.close());

  /** Every admin route, with a body that would succeed (and change something) if authenticated. */
  const routes = (): [Method, string, unknown?][] => [
    ['POST', '/admin/merchants', { merchant_id: ghostMerchant }],
    ['GET', '/admin/merchants'],
    ['GET', `/admin/merchants/${merchant.id}`],
    ['PATCH', `/admin/merchants/${merchant.id}`, { enabled: false, payin_fee_percent: 50 }],
    ['POST', `/admin/merchants/${merchant.id}/api-keys`, {}],
    [
      'POST',
      `/admin/merchants/${merchant.id}/ledger-adjustments`,
      { currency: 'RUB', amount: 1000, reason: 'x' },
    ],
    ['GET', `/admin/merchants/${merchant.id}/ledger`],
    [
      'POST',
      '/admin/requisites',
      { kind: 'phone', bank: ghostBank, address: '79990001122', holder_name: 'X', currency: 'ARS' },
    ],
    ['GET', '/admin/requisites'],
    ['PATCH', `/admin/requisites/${requisiteId}`, { enabled: false }],
    ['PUT', '/admin/rates', { base: 'USDT', quote: ghostQuote, rate: '90' }],
    ['GET', '/admin/rates'],
    ['GET', '/admin/orders'],
    ['GET', `/admin/orders/${orderId}`],
    ['POST', `/admin/orders/${orderId}/confirm`, {}],
    ['POST', `/admin/orders/${orderId}/cancel`, { reason: 'x' }],
    ['GET', '/admin/banks'],
    ['POST', '/admin/banks', { code: ghostBank, name: `Ghost ${ghostBank}` }],
    ['PATCH', '/admin/banks/tbank', { enabled: true }],
  ];

  it('every admin route refuses a missing or wrong credential with 401 and changes nothing', async () => {
    let checked = 0;
    for (const [method, url, body] of routes()) {
      for (const [label, headers] of BAD_AUTH) {
        const res = await t.app.inject({
          method,
          url,
          headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        expectError(res, 401, 'UNAUTHORIZED', `${method} ${url} with ${label}:`);
        assert.equal(res.body.includes(ADMIN_TOKEN), false, res.body);
        checked++;
      }
    }
    assert.equal(checked, 19 * BAD_AUTH.length);

    const ghost = await adminRaw(t.app, 'GET', `/admin/merchants/${ghostMerchant}`);
    expectError(ghost, 404, 'NOT_FOUND', 'the merchant was not created:');
    const m = await admin<{ enabled: boolean; payin_fee_percent: string }>(
      t.app,
      'GET',
      `/admin/merchants/${merchant.id}`,
    );
    assert.deepEqual([m.enabled, m.payin_fee_percent], [true, '0'], JSON.stringify(m));
    const balance = await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`);
    assert.equal(balance.statusCode, 200, `the key was not rotated: ${balance.body}`);
    assert.equal(balance.json().balance, 0, balance.body);
    const req = (await t.database.db.select().from(requisites).where(eq(requisites.id, requisiteId)))[0];
    assert.equal(req?.enabled, true, JSON.stringify(req));
    const ghostReqs = await t.database.db.select().from(requisites).where(eq(requisites.bank, ghostBank));
    assert.equal(ghostReqs.length, 0, JSON.stringify(ghostReqs));
    const rates = await admin<{ quote: string }[]>(t.app, 'GET', '/admin/rates');
    assert.equal(
      rates.some((r) => r.quote === ghostQuote),
      false,
      'the rate was not set',
    );
    const order = await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${orderId}`);
    assert.equal(order.status, 'pending', JSON.stringify(order));
    const banks = await admin<{ code: string }[]>(t.app, 'GET', '/admin/banks');
    assert.equal(
      banks.some((b) => b.code === ghostBank),
      false,
      'the bank was not added',
    );
    const audit = await t.database.db
      .select()
      .from(auditLog)
      .where(inArray(auditLog.targetId, [merchant.id, ghostMerchant, requisiteId, orderId, ghostBank]));
    assert.deepEqual(
      audit.map((r) => r.action).sort(),
      ['merchant.create', 'requisite.create'],
      `only the setup is audited: ${JSON.stringify(audit)}`,
    );
  });

  it('the admin token does not authenticate merchant routes', async () => {
    const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const asKey = { 'client-api-key': ADMIN_TOKEN, 'x-api-key': sign(ADMIN_TOKEN) };
    for (const headers of [bearer, asKey, { ...bearer, ...asKey }]) {
      for (const url of [
        '/merchant/banks',
        `/merchant/balance/${merchant.id}`,
        `/merchant/order/${orderId}`,
      ]) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        expectError(res, 401, 'INVALID_API_KEY', `GET ${url}:`);
      }
      const body = JSON.stringify({ merchant_id: merchant.id, amount: uniqueAmount(), type: 'sim' });
      const create = await t.app.inject({
        method: 'POST',
        url: '/merchant/createOrder',
        headers: { ...headers, 'content-type': 'application/json', 'x-api-key': sign(ADMIN_TOKEN, body) },
        payload: body,
      });
      expectError(create, 401, 'INVALID_API_KEY', 'createOrder:');
    }
  });

  it('a body that is not a JSON object is 400 INVALID_JSON, after authentication', async () => {
    for (const payload of ['{"merchant_id": ', '[]', '"text"', '42', 'null']) {
      const id = `m_${randomUUID().slice(0, 12)}`;
      const text = payload.replace('": ', `": "${id}"`);
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/merchants',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: text,
      });
      expectError(res, 400, 'INVALID_JSON', `body ${text}:`);
      expectError(await adminRaw(t.app, 'GET', `/admin/merchants/${id}`), 404, 'NOT_FOUND', 'not created:');
      const anonymous = await t.app.inject({
        method: 'POST',
        url: '/admin/merchants',
        headers: { 'content-type': 'application/json' },
        payload: text,
      });
      expectError(anonymous, 401, 'UNAUTHORIZED', `unauthenticated body ${text}:`);
    }
    const broken = await t.app.inject({
      method: 'PATCH',
      url: `/admin/merchants/${merchant.id}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: '{"enabled": false',
    });
    expectError(broken, 400, 'INVALID_JSON');
    assert.equal(
      (await admin<{ enabled: boolean }>(t.app, 'GET', `/admin/merchants/${merchant.id}`)).enabled,
      true,
    );
  });

  it('a body over 1 MB is 413 PAYLOAD_TOO_LARGE and creates nothing', async () => {
    const id = `m_${randomUUID().slice(0, 12)}`;
    const payload = JSON.stringify({ merchant_id: id, comment: 'a'.repeat(1_100_000) });
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/merchants',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload,
    });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expectError(await adminRaw(t.app, 'GET', `/admin/merchants/${id}`), 404, 'NOT_FOUND');
  });

  it('an unknown route is 404 NOT_FOUND in the envelope', async () => {
    for (const [method, url] of [
      ['GET', '/admin/unknown'],
      ['POST', '/admin/merchants/x/unknown'],
      ['DELETE', `/admin/merchants/${merchant.id}`],
      ['GET', '/nothing-here'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expectError(res, 404, 'NOT_FOUND', `${method} ${url}:`);
    }
  });

  it('a text/plain body is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/merchants',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
      payload: JSON.stringify({ merchant_id: `m_${randomUUID().slice(0, 12)}` }),
    });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('other media types are 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['application/xml', 'application/x-www-form-urlencoded']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/merchants',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type },
        payload: 'merchant_id=x',
      });
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', `${type}:`);
    }
  });

  it('error answers carry no stack trace, file path or SQL', async () => {
    const cases: [string, Promise<LightMyRequestResponse>][] = [
      ['validation', adminRaw(t.app, 'POST', '/admin/merchants', { merchant_id: 'bad id!' })],
      ['duplicate', adminRaw(t.app, 'POST', '/admin/merchants', { merchant_id: merchant.id })],
      ['conflict', adminRaw(t.app, 'POST', `/admin/orders/${orderId}/cancel`, { reason: '' })],
      ['not found', adminRaw(t.app, 'GET', `/admin/orders/lux${randomUUID()}`)],
      [
        'overdraw',
        adminRaw(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
          currency: 'RUB',
          amount: -1,
          reason: 'x',
        }),
      ],
      [
        'database type error',
        adminRaw(t.app, 'PATCH', `/admin/requisites/${'-'.repeat(36)}`, { enabled: true }),
      ],
      ['offset overflow', adminRaw(t.app, 'GET', '/admin/orders?page=100000000000000000000')],
      ['long id', adminRaw(t.app, 'GET', `/admin/merchants/${'x'.repeat(90)}`)],
      ['sql-like id', adminRaw(t.app, 'GET', `/admin/orders/${encodeURIComponent("x' OR 1=1 --")}`)],
      ['bad query', adminRaw(t.app, 'GET', '/admin/orders?from=yesterday&size=x')],
      [
        'bad json',
        t.app.inject({
          method: 'PUT',
          url: '/admin/rates',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          payload: '{"base": "USDT", ',
        }),
      ],
    ];
    for (const [label, pending] of cases) {
      const res = await pending;
      assert.ok(res.statusCode >= 400, `${label}: ${res.statusCode} ${res.body}`);
      assertCleanError(res, label);
    }
    // Its SQL fails today (LIST_BUG in admin-requisites-rates.test.ts); once fixed it answers 200.
    const failingSql = await adminRaw(t.app, 'GET', '/admin/requisites');
    if (failingSql.statusCode >= 400) assertCleanError(failingSql, 'failing SQL');
  });

  it('an over-long path parameter is answered in the error envelope', async () => {
    const res = await adminRaw(t.app, 'GET', `/admin/merchants/${'x'.repeat(5000)}`);
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, res.body.slice(0, 300));
    assertCleanError(res, 'long path parameter');
    assert.ok(res.body.length < 1000, `the answer does not echo the URL: ${res.body.slice(0, 300)}`);
  });

  it('an out-of-range page is a client error, not 500', async () => {
    const res = await adminRaw(t.app, 'GET', '/admin/orders?page=100000000000000000000');
    expectError(res, 400, 'VALIDATION_ERROR');
  });
});
