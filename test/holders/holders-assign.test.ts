import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { consoleLogin, consolePost } from '../helpers/console.js';
import { addRequisite, admin, adminRaw } from '../helpers/merchant-client.js';
import { operatorsByRole } from './holders-helpers.js';

// Assigning requisites and phones to holders (docs/decisions.md "Assigning requisites and phones to
// holders"): through the admin API, audited; what belongs to another holder moves only when the
// operator says `move: true`, never silently (HOLDER_ASSIGNMENT_CONFLICT otherwise). Synthetic
// holders and phones; the requisites take no order (max_amount 1).

interface AuditEntry {
  action: string;
  target_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

describe('holders: assigning requisites and phones', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const newHolder = (name = 'Synthetic assignee') =>
    admin<{ id: string }>(t.app, 'POST', '/admin/holders', { name });
  const newPhone = () =>
    admin<{ id: string }>(t.app, 'POST', '/admin/devices', {
      name: `phone-${randomUUID().slice(0, 6)}`,
      requisite_ids: [],
    });
  const requisitesOf = async (id: string) =>
    (await admin<{ requisites: { id: string }[] }>(t.app, 'GET', `/admin/holders/${id}`)).requisites.map(
      (r) => r.id,
    );
  const holderOfPhone = async (id: string) =>
    (await admin<Array<{ id: string; holder_id: string | null }>>(t.app, 'GET', '/admin/devices')).find(
      (d) => d.id === id,
    )?.holder_id;
  const audit = (action: string, targetId: string) =>
    admin<AuditEntry[]>(t.app, 'GET', `/admin/audit?action=${action}&target_id=${targetId}`);

  it('a requisite of another holder moves only with move: true; the audit names where from', async () => {
    const [a, b] = [await newHolder('Synthetic A'), await newHolder('Synthetic B')];
    const requisite = await addRequisite(t.app, { min_amount: '1', max_amount: '1' });
    await admin(t.app, 'PUT', `/admin/holders/${a.id}/requisites`, { requisite_ids: [requisite.id] });
    const silent = await adminRaw(t.app, 'PUT', `/admin/holders/${b.id}/requisites`, {
      requisite_ids: [requisite.id],
    });
    assert.equal(silent.statusCode, 409, silent.body);
    assert.equal(silent.json().message, 'HOLDER_ASSIGNMENT_CONFLICT');
    assert.match(silent.body, new RegExp(`${requisite.id} belongs to holder ${a.id}`));
    assert.deepEqual(await requisitesOf(a.id), [requisite.id], 'nothing written');
    assert.deepEqual(await requisitesOf(b.id), []);
    await admin(t.app, 'PUT', `/admin/holders/${b.id}/requisites`, {
      requisite_ids: [requisite.id],
      move: true,
    });
    assert.deepEqual(await requisitesOf(a.id), []);
    assert.deepEqual(await requisitesOf(b.id), [requisite.id]);
    const entry = (await audit('holder.requisites', b.id))[0];
    assert.deepEqual(entry?.after, { requisite_ids: [requisite.id], moved_from: { [requisite.id]: a.id } });
    // Its own requisites and free ones need no flag; an unknown one is VALIDATION_ERROR.
    const free = await addRequisite(t.app, { min_amount: '1', max_amount: '1' });
    await admin(t.app, 'PUT', `/admin/holders/${b.id}/requisites`, {
      requisite_ids: [requisite.id, free.id],
    });
    assert.deepEqual((await requisitesOf(b.id)).sort(), [requisite.id, free.id].sort());
    const unknown = await adminRaw(t.app, 'PUT', `/admin/holders/${b.id}/requisites`, {
      requisite_ids: [randomUUID()],
    });
    assert.equal(unknown.json().message, 'VALIDATION_ERROR');
  });

  it('a phone is given to a holder by API, moved only with move: true, audited', async () => {
    const [a, b] = [await newHolder('Synthetic phone A'), await newHolder('Synthetic phone B')];
    const phone = await newPhone();
    assert.equal(await holderOfPhone(phone.id), null);
    const given = await admin<{ holder_id: string }>(t.app, 'PUT', `/admin/devices/${phone.id}/holder`, {
      holder_id: a.id,
    });
    assert.equal(given.holder_id, a.id);
    assert.equal(await holderOfPhone(phone.id), a.id);
    const silent = await adminRaw(t.app, 'PUT', `/admin/devices/${phone.id}/holder`, { holder_id: b.id });
    assert.equal(silent.statusCode, 409, silent.body);
    assert.equal(silent.json().message, 'HOLDER_ASSIGNMENT_CONFLICT');
    assert.equal(await holderOfPhone(phone.id), a.id, 'nothing written');
    // Taking it from its holder without another is a move too.
    const away = await adminRaw(t.app, 'PUT', `/admin/devices/${phone.id}/holder`, { holder_id: null });
    assert.equal(away.json().message, 'HOLDER_ASSIGNMENT_CONFLICT');
    await admin(t.app, 'PUT', `/admin/devices/${phone.id}/holder`, { holder_id: b.id, move: true });
    assert.equal(await holderOfPhone(phone.id), b.id);
    const entries = await audit('device.holder', phone.id);
    assert.deepEqual(
      entries.map((e) => [e.before?.holder_id, e.after?.holder_id]),
      [
        [a.id, b.id],
        [null, a.id],
      ],
    );
    // Again to the same holder: nothing to do, no entry.
    await admin(t.app, 'PUT', `/admin/devices/${phone.id}/holder`, { holder_id: b.id });
    assert.equal((await audit('device.holder', phone.id)).length, 2);
    await admin(t.app, 'PUT', `/admin/devices/${phone.id}/holder`, { holder_id: null, move: true });
    assert.equal(await holderOfPhone(phone.id), null);
  });

  it('bad input and roles: unknown holder 400, unknown phone 404, a viewer 403', async () => {
    const holder = await newHolder();
    const phone = await newPhone();
    const unknownHolder = await adminRaw(t.app, 'PUT', `/admin/devices/${phone.id}/holder`, {
      holder_id: randomUUID(),
    });
    assert.equal(unknownHolder.statusCode, 400, unknownHolder.body);
    assert.equal(unknownHolder.json().message, 'VALIDATION_ERROR');
    const unknownPhone = await adminRaw(t.app, 'PUT', `/admin/devices/${randomUUID()}/holder`, {
      holder_id: holder.id,
    });
    assert.equal(unknownPhone.statusCode, 404, unknownPhone.body);
    const as = await operatorsByRole(t);
    const viewer = await as('viewer', 'PUT', `/admin/devices/${phone.id}/holder`, { holder_id: holder.id });
    assert.equal(viewer.statusCode, 403, viewer.body);
    assert.equal(await holderOfPhone(phone.id), null);
  });

  it('console: the holder page gives a phone to the holder and lists it', async () => {
    const user = { username: `admin-${randomUUID().slice(0, 6)}`, password: 'a long enough password 19' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'admin' });
    const session = await consoleLogin(t.app, user.username, user.password);
    const [a, b] = [await newHolder('Synthetic console A'), await newHolder('Synthetic console B')];
    const phone = await newPhone();
    await admin(t.app, 'PUT', `/admin/devices/${phone.id}/holder`, { holder_id: a.id });
    const url = `/backoffice/holders/${b.id}/devices`;
    const refused = await consolePost(t.app, session, url, { device_id: phone.id });
    assert.match(String(refused.headers.location), /error=HOLDER_ASSIGNMENT_CONFLICT/);
    const moved = await consolePost(t.app, session, url, { device_id: phone.id, move: 'on' });
    assert.match(String(moved.headers.location), /msg=holderPhoneAssigned/);
    const page = await t.app.inject({
      method: 'GET',
      url: `/backoffice/holders/${b.id}?lang=en`,
      headers: { cookie: session.cookie },
    });
    const phones = /data-testid="holder-phones">(.*?)<\/ul>/s.exec(page.body)?.[1] ?? '';
    const name = (await admin<Array<{ id: string; name: string }>>(t.app, 'GET', '/admin/devices')).find(
      (d) => d.id === phone.id,
    )?.name;
    assert.ok(name && phones.includes(name), phones);
  });
});
