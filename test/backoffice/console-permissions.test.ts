import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type ConsoleSession, consoleLogin, consolePost } from '../helpers/console.js';
import { addRequisite, admin, createMerchant, createOrder } from '../helpers/merchant-client.js';

// docs/decisions.md section 32: a role's permission is checked before anything else an action
// does, so a role that may not act gets 403 and never the "are you sure?" page.
describe('console: permission before the confirmation page', () => {
  let t: TestApp;
  const sessions: Record<string, ConsoleSession> = {};
  let orderId: string;
  let merchantId: string;

  before(async () => {
    t = await startTestApp();
    for (const role of ['viewer', 'payouts']) {
      const user = { username: `${role}-${randomUUID().slice(0, 8)}`, password: `pw-${randomUUID()}` };
      await admin(t.app, 'POST', '/admin/operators', { ...user, role });
      sessions[role] = await consoleLogin(t.app, user.username, user.password);
    }
    const merchant = await createMerchant(t.app, { payment_types: ['card_pdf'] });
    merchantId = merchant.id;
    await addRequisite(t.app, { kind: 'card', address: `2200${String(Date.now()).slice(-12)}` });
    const created = await createOrder(t.app, merchant, { type: 'card_pdf', amount: 1700 });
    assert.equal(created.statusCode, 200, created.body);
    orderId = created.json().id;
  });
  after(async () => t.close());

  const status = async () =>
    (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${orderId}`)).status;

  for (const [role, action] of [
    ['viewer', 'confirm'],
    ['viewer', 'cancel'],
    ['payouts', 'confirm'],
  ] as const) {
    it(`a ${role} operator posting ${action} on a PAYIN gets 403, not the confirmation page`, async () => {
      const session = sessions[role];
      assert.ok(session);
      for (const confirmed of [undefined, 'yes']) {
        const res = await consolePost(t.app, session, `/backoffice/orders/${orderId}/${action}`, {
          reason: 'x',
          ...(confirmed ? { confirmed } : {}),
        });
        assert.equal(res.statusCode, 403, res.body.slice(0, 300));
        assert.doesNotMatch(res.body, /name="confirmed" value="yes"/);
      }
      assert.equal(await status(), 'pending');
    });
  }

  it("a viewer posting a merchant's key rotation gets 403 before any page", async () => {
    const session = sessions.viewer;
    assert.ok(session);
    const res = await consolePost(t.app, session, `/backoffice/merchants/${merchantId}/rotate-key`, {});
    assert.equal(res.statusCode, 403, res.body.slice(0, 300));
    assert.doesNotMatch(res.body, /name="confirmed" value="yes"/);
  });
});
