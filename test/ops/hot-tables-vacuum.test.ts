import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { type Database, rowsOf } from '../../src/db/database.js';
import { vacuumHotTables } from '../../src/platform/upkeep/index.js';
import { closeTestDatabase, onPostgres, testDatabase } from '../helpers/database.js';

const HOT_TABLES = ['requisites', 'balances', 'holders', 'holder_devices'];

/** Dead row versions of `requisites` by the statistics (PostgreSQL). */
async function deadRequisites(database: Database): Promise<number> {
  const rows = rowsOf<{ dead: string }>(
    await database.db.execute(
      sql`SELECT n_dead_tup AS dead FROM pg_stat_user_tables WHERE relname = 'requisites' AND schemaname = current_schema()`,
    ),
  );
  return Number(rows[0]?.dead ?? 0);
}

// docs/decisions.md "The requisite claim under load".
describe('the hot tables are vacuumed by the service, whatever the server autovacuum does', () => {
  let database: Database;
  let requisiteId: string;

  before(async () => {
    database = await testDatabase();
    // A requisite that takes no order (at most 1 RUB): other files' orders never land on it.
    const rows = rowsOf<{ id: string }>(
      await database.db.execute(sql`INSERT INTO requisites (kind, bank, address, holder_name, currency, max_amount)
        VALUES ('phone', 'Sberbank', ${`7${Date.now() % 10_000_000_000}`}, ${`Vacuum ${randomUUID()}`}, 'RUB', 1)
        RETURNING id`),
    );
    requisiteId = (rows[0] as { id: string }).id;
  });
  after(closeTestDatabase);

  it('vacuums every hot table on PGlite, which keeps no live statistics', {
    skip: onPostgres(),
  }, async () => {
    const done = await vacuumHotTables(database, HOT_TABLES);
    assert.deepEqual(done.sort(), ['balances', 'holder_devices', 'holders', 'requisites']);
  });

  it('vacuums the requisites once a claim-like churn left enough dead versions, and not before (PostgreSQL)', {
    skip: !onPostgres() && 'PostgreSQL only: PGlite keeps no live statistics',
  }, async () => {
    assert.deepEqual(
      (await vacuumHotTables(database, HOT_TABLES, 1_000_000_000)).filter((t) => t === 'requisites'),
      [],
      'nothing is vacuumed under the threshold',
    );
    // Every claim rewrites its requisite's last_order_seq: 600 claims' worth of dead versions.
    for (let i = 0; i < 600; i++)
      await database.db.execute(
        sql`UPDATE requisites SET last_order_seq = last_order_seq + 1 WHERE id = ${requisiteId}::uuid`,
      );
    // The statistics reach the server within a second of a backend's last report.
    let vacuumed: string[] = [];
    for (let i = 0; i < 40 && !vacuumed.includes('requisites'); i++) {
      await new Promise((r) => setTimeout(r, 250));
      vacuumed = await vacuumHotTables(database, HOT_TABLES, 500);
    }
    assert.ok(vacuumed.includes('requisites'), `requisites vacuumed (got ${vacuumed.join(', ')})`);
    assert.ok((await deadRequisites(database)) < 500, 'the dead versions are gone');
  });
});
