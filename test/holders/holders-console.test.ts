import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type ConsoleSession, consoleLogin, consolePost } from '../helpers/console.js';
import { addRequisite, admin } from '../helpers/merchant-client.js';
import type { Books } from './holders-helpers.js';

// The console's holders (docs/decisions.md "Holders' limits in the claim"): the dashboard lists
// holders near or over their limit; the list and a holder's page show held, limit, deposit, pending
// and the last settlement, their requisites; the forms record a settlement (pool.manage) and a
// correction (admin only), with the admin API's codes when refused. Synthetic holders.
describe('console: holders pages', () => {
  let t: TestApp;
  let adminSession: ConsoleSession;
  let viewerSession: ConsoleSession;
  before(async () => {
    t = await startTestApp();
    const login = async (role: string) => {
      const user = { username: `${role}-${randomUUID().slice(0, 6)}`, password: 'a long enough password 19' };
      await admin(t.app, 'POST', '/admin/operators', { ...user, role });
      return consoleLogin(t.app, user.username, user.password);
    };
    adminSession = await login('admin');
    viewerSession = await login('viewer');
  });
  after(() => t.close());

  const get = (session: ConsoleSession, url: string) =>
    t.app.inject({ method: 'GET', url, headers: { cookie: session.cookie } });

  it('shows a holder near the limit on the dashboard, the list and their page; records a settlement', async () => {
    const name = `Synthetic console ${randomUUID().slice(0, 6)}`;
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name,
      exposure_limit: '1000',
      security_deposit: '250',
    });
    const requisite = await addRequisite(t.app, { kind: 'card', bank: 'pochta' });
    await admin(t.app, 'PATCH', `/admin/requisites/${requisite.id}`, { enabled: false });
    await admin(t.app, 'PUT', `/admin/holders/${holder.id}/requisites`, { requisite_ids: [requisite.id] });
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, {
      amount: '1100',
      reason: 'opening',
    });
    const dashboard = await get(adminSession, '/backoffice/dashboard?lang=en');
    assert.equal(dashboard.statusCode, 200);
    assert.ok(dashboard.body.includes(name), 'the dashboard lists the holder at 88 %');
    assert.match(dashboard.body, /88 % of the limit/);
    const list = await get(adminSession, '/backoffice/holders?lang=en');
    assert.equal(list.statusCode, 200);
    assert.ok(list.body.includes(name));
    const page = await get(adminSession, `/backoffice/holders/${holder.id}?lang=ru`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Держит/);
    assert.match(page.body, /data-testid="holder-held">1100 RUB/);
    assert.ok(page.body.includes(requisite.address));
    const done = await consolePost(t.app, adminSession, `/backoffice/holders/${holder.id}/settlements`, {
      amount: '600',
      method: 'cash',
      reference: 'synthetic handover',
    });
    assert.match(String(done.headers.location), /msg=holderSettled/);
    const books = (await admin<{ books: Books }>(t.app, 'GET', `/admin/holders/${holder.id}`)).books;
    assert.equal(books.held, '500');
    const after = await get(adminSession, `/backoffice/holders/${holder.id}?lang=en`);
    assert.match(after.body, /synthetic handover/);
  });

  it('refuses with the API codes: too much, a bad amount, a viewer, a correction without a reason', async () => {
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic refusals',
    });
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, {
      amount: '100',
      reason: 'opening',
    });
    const url = `/backoffice/holders/${holder.id}/settlements`;
    const tooMuch = await consolePost(t.app, adminSession, url, {
      amount: '101',
      method: 'cash',
      reference: 'x',
    });
    assert.match(String(tooMuch.headers.location), /error=SETTLEMENT_EXCEEDS_HELD/);
    const bad = await consolePost(t.app, adminSession, url, { amount: '-5', method: 'cash', reference: 'x' });
    assert.match(String(bad.headers.location), /error=INVALID_AMOUNT/);
    const word = await consolePost(t.app, adminSession, url, {
      amount: 'lots',
      method: 'cash',
      reference: 'x',
    });
    assert.match(String(word.headers.location), /error=INVALID_AMOUNT/);
    const viewer = await consolePost(t.app, viewerSession, url, {
      amount: '1',
      method: 'cash',
      reference: 'x',
    });
    assert.equal(viewer.statusCode, 403);
    const noReason = await consolePost(t.app, adminSession, `/backoffice/holders/${holder.id}/corrections`, {
      amount: '5',
      reason: ' ',
    });
    assert.match(String(noReason.headers.location), /error=VALIDATION_ERROR/);
    const books = (await admin<{ books: Books }>(t.app, 'GET', `/admin/holders/${holder.id}`)).books;
    assert.equal(books.held, '100', 'nothing written');
    // A viewer reads the pages but gets no forms.
    const page = await get(viewerSession, `/backoffice/holders/${holder.id}`);
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes('settle-form'));
  });
});
