import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/database.js';
import { closeTestDatabase, onPostgres, testDatabase } from '../helpers/database.js';

// docs/decisions.md "Plans made once for the claim".
describe('the claim plans its statements once per connection', () => {
  after(closeTestDatabase);

  it('on PostgreSQL the claim has a pool that uses generic plans, and only the claim', {
    skip: !onPostgres() && 'PostgreSQL only (PGlite has one connection: the claim uses it as is)',
  }, async () => {
    const database = await testDatabase();
    const mode = async (db: typeof database.db) =>
      rowsOf<{ plan_cache_mode: string }>(await db.execute(sql`SHOW plan_cache_mode`))[0]?.plan_cache_mode;
    assert.equal(await mode(database.genericPlans), 'force_generic_plan');
    assert.equal(await mode(database.db), 'auto', 'every other statement keeps the default');
  });

  it('on PGlite the claim uses the one connection', {
    skip: onPostgres() && 'embedded database only',
  }, async () => {
    const database = await testDatabase();
    assert.equal(database.genericPlans, database.db);
  });
});
