import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { bankNotifications, holderDevices } from '../../src/db/tables/devices.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, admin } from '../helpers/merchant-client.js';

// Its minimum amount keeps this requisite off every other test file's orders (the pool test
// relies on owning the only TRY requisite that can take one).
// The migration keeps the most recently used binding and lists the others for
// operators (docs/decisions.md section 24). The migration's own statement runs over devices as they were before it.
const migration = readFileSync(new URL('../../drizzle/0011_device_events.sql', import.meta.url), 'utf8');
// The table it reads was renamed later (drizzle/0026_holder_devices.sql): the statement runs on today's name.
const keepBindings = (migration.split('--> statement-breakpoint').at(-1) as string).replaceAll(
  'trader_devices',
  'holder_devices',
);

describe('one device per requisite: the migration of earlier bindings (docs/decisions.md section 24)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('the device whose notification came last keeps the requisite; the other lists it as not bound', async () => {
    const r = await addRequisite(t.app, { kind: 'phone', currency: 'TRY', min_amount: '999999999' });
    const db = t.database.db;
    const legacy = (name: string, createdAt: Date) =>
      db
        .insert(holderDevices)
        .values({ name, tokenDigest: randomUUID(), requisiteIds: [r.id], createdAt })
        .returning()
        .then((rows) => rows[0] as { id: string });
    const older = await legacy('older-but-used', new Date('2026-01-01T00:00:00Z'));
    const newer = await legacy('newer-unused', new Date('2026-06-01T00:00:00Z'));
    await db.insert(bankNotifications).values({
      deviceId: older.id,
      messageId: 'm1',
      requisiteId: r.id,
      amount: '100',
      currency: 'TRY',
      receivedAt: new Date(),
      status: 'matched',
    });
    await db.execute(sql.raw(keepBindings));
    const devices = await admin<
      Array<{
        id: string;
        requisite_ids: string[];
        unbound_legacy_requisite_ids: string[];
        warnings: string[];
      }>
    >(t.app, 'GET', '/admin/devices');
    const kept = devices.find((d) => d.id === older.id);
    const listed = devices.find((d) => d.id === newer.id);
    assert.deepEqual(kept?.requisite_ids, [r.id]);
    assert.deepEqual(listed?.requisite_ids, []);
    assert.deepEqual(listed?.unbound_legacy_requisite_ids, [r.id]);
    assert.ok(listed?.warnings.includes('unbound_legacy_requisites'));
  });
});
