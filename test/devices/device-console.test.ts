import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type ConsoleSession, consoleLogin, consolePost } from '../helpers/console.js';
import { addRequisite, admin } from '../helpers/merchant-client.js';
import { gatewaySms, type PairedDevice, pairDevice } from '../helpers/phones.js';

// docs/decisions.md section 24: operators see a new message format with its raw text, and dismiss or
// assign from the console; the devices page shows state and warnings.
describe('console: device messages and devices (docs/decisions.md section 24)', () => {
  let t: TestApp;
  let session: ConsoleSession;
  let device: PairedDevice;
  before(async () => {
    t = await startTestApp();
    const user = { username: `ops-${randomUUID().slice(0, 6)}`, password: 'a long enough password 19' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'admin' });
    session = await consoleLogin(t.app, user.username, user.password);
    // A disabled Pochta Bank card: it takes no orders from other files.
    const requisite = await addRequisite(t.app, { kind: 'card', bank: 'pochta' });
    await admin(t.app, 'PATCH', `/admin/requisites/${requisite.id}`, { enabled: false });
    device = await pairDevice(t.app, [requisite.id]);
  });
  after(() => t.close());

  it('an unread message from a bank shows as a new format with its raw text; dismissing needs a reason', async () => {
    const text = `Почта Банк: совсем новый формат ${randomUUID().slice(0, 6)} 1 234 ₽ <b>`;
    const res = await gatewaySms(
      t.app,
      device,
      { sender: 'Pochtabank', text, receivedAt: new Date() },
      Date.now(),
    );
    assert.equal(res.json().data.reason, 'no_direction', res.body);
    const page = await t.app.inject({
      method: 'GET',
      url: '/backoffice/device-events',
      headers: { cookie: session.cookie },
    });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /New message format from pochta/);
    assert.ok(page.body.includes(text.replace('<b>', '&lt;b&gt;')), 'raw text, escaped');
    const id = res.json().data.event_id as string;
    const noReason = await consolePost(t.app, session, `/backoffice/device-events/${id}/dismiss`, {
      reason: ' ',
    });
    assert.match(String(noReason.headers.location), /error=VALIDATION_ERROR/);
    const done = await consolePost(t.app, session, `/backoffice/device-events/${id}/dismiss`, {
      reason: 'a bank advert',
    });
    assert.match(String(done.headers.location), /msg=dismissed/);
    const [event] = await admin<Array<{ status: string; resolution: string }>>(
      t.app,
      'GET',
      `/admin/device-events?device_id=${device.id}`,
    );
    assert.deepEqual([event?.status, event?.resolution], ['dismissed', 'a bank advert']);
  });

  it('the devices page shows the state of each phone', async () => {
    const page = await t.app.inject({
      method: 'GET',
      url: '/backoffice/devices',
      headers: { cookie: session.cookie },
    });
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(device.name));
    assert.match(page.body, /<strong>online<\/strong>/);
  });
});
