import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { inArray, sql } from 'drizzle-orm';
import { holders } from '../../src/db/tables/holders.js';
import { requisites } from '../../src/db/tables/requisites.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { needsEmbedded } from '../helpers/database.js';
import { addRequisite } from '../helpers/merchant-client.js';

// The migration that made holders first-class gives every existing requisite a holder: one per
// distinct (trimmed) holder name, marked for review. Its backfill statements run here over
// requisites as they were before it (holder_id null), in a transaction rolled back afterwards so that
// no other test file's requisite keeps the migration's holder. Synthetic names.
const migration = readFileSync(new URL('../../drizzle/0025_holders.sql', import.meta.url), 'utf8');
// The devices table was renamed later (drizzle/0026_holder_devices.sql): the statements run on today's name.
const backfill = migration
  .slice(migration.indexOf('-- Backfill'))
  .replaceAll('"trader_devices"', '"holder_devices"')
  .split('--> statement-breakpoint')
  .map((s) => s.trim())
  .filter((s) => s.length > 0);

class Rollback extends Error {}

describe('holders: the migration of existing requisites', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  // The backfill updates every requisite of the database: on a PostgreSQL shared with other test
  // files its row locks would make their claims skip requisites for a moment.
  const skip = needsEmbedded('the backfill locks every requisite of a shared database');
  it('makes one holder per distinct trimmed holder name, marked from_migration, and links each requisite', {
    skip,
  }, async () => {
    const tag = randomUUID().slice(0, 8);
    const names = [`Synthetic Anna ${tag}`, ` Synthetic Anna ${tag} `, `Synthetic Boris ${tag}`];
    const made = [];
    for (const holder_name of names)
      made.push(await addRequisite(t.app, { holder_name, min_amount: '999999999' }));
    const ids = made.map((r) => r.id);
    assert.equal(backfill.length, 3, 'holders, requisites, phones');
    const result = await t.database.db
      .transaction(async (tx) => {
        for (const statement of backfill) await tx.execute(sql.raw(statement));
        const links = await tx
          .select({ id: requisites.id, holderId: requisites.holderId })
          .from(requisites)
          .where(inArray(requisites.id, ids));
        const made = await tx
          .select()
          .from(holders)
          .where(inArray(holders.name, [`Synthetic Anna ${tag}`, `Synthetic Boris ${tag}`]));
        throw new Rollback(JSON.stringify({ links, made }));
      })
      .catch((err: unknown) => {
        if (err instanceof Rollback) return JSON.parse(err.message);
        throw err;
      });
    const byName = new Map<string, { id: string; from_migration?: string; fromMigration?: string }>(
      result.made.map((h: { name: string; id: string }) => [h.name, h]),
    );
    assert.equal(result.made.length, 2, 'the two spellings of Anna are one holder');
    for (const h of result.made) assert.equal(h.fromMigration, 'holder_name');
    const holderOf = new Map(result.links.map((l: { id: string; holderId: string }) => [l.id, l.holderId]));
    const anna = byName.get(`Synthetic Anna ${tag}`)?.id;
    const boris = byName.get(`Synthetic Boris ${tag}`)?.id;
    assert.deepEqual(
      ids.map((id) => holderOf.get(id)),
      [anna, anna, boris],
    );
    // Rolled back: nothing of it stays.
    const left = await t.database.db
      .select()
      .from(holders)
      .where(inArray(holders.name, [`Synthetic Anna ${tag}`]));
    assert.equal(left.length, 0);
  });
});
