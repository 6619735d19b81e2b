import { getTableName, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type Database, rowsOf } from './database.js';
import { holderDevices } from './tables/devices.js';
import { holders } from './tables/holders.js';
import { balances } from './tables/ledger.js';
import { requisites } from './tables/requisites.js';

/**
 * Tables whose few rows are rewritten by every order or payment (docs/decisions.md "The requisite
 * claim under load"): each requisite's `last_order_seq` (every claim), merchants' balances and
 * holders' held amounts (every success), phones' heartbeats. Each rewrite leaves a dead row
 * version, and the claim reads the requisites' LRU index from its head, where the dead versions
 * of the least recently used rows gather: unvacuumed, a claim wades through every order's leftover.
 */
export const HOT_TABLES: readonly PgTable[] = [requisites, balances, holders, holderDevices];

/** Dead row versions of a hot table above which it is vacuumed (PostgreSQL). */
export const HOT_TABLE_MIN_DEAD = 500;

/**
 * Vacuums the hot tables that need it, whatever the server's autovacuum does (it may be off or
 * wake once a minute; docs/decisions.md "The requisite claim under load"): on PostgreSQL those with
 * at least `minDead` dead row versions by the statistics (at most a second old), each with
 * `VACUUM (SKIP_LOCKED)` so that a vacuum already running elsewhere is not waited for; on PGlite,
 * which keeps no live statistics, every hot table. Answers the names of the tables vacuumed.
 * Throws the driver's error when the database is unreachable (the periodic job logs it).
 */
export async function vacuumHotTables(
  database: Pick<Database, 'db' | 'kind'>,
  minDead = HOT_TABLE_MIN_DEAD,
): Promise<string[]> {
  const names = HOT_TABLES.map((t) => getTableName(t));
  let due = names;
  if (database.kind === 'postgres') {
    const stats = rowsOf<{ relname: string; dead: string }>(
      await database.db.execute(sql`SELECT relname, n_dead_tup AS dead FROM pg_stat_user_tables
        WHERE schemaname = current_schema() AND relname = ANY(${`{${names.join(',')}}`}::text[])`),
    );
    due = stats.filter((s) => Number(s.dead) >= minDead).map((s) => s.relname);
  }
  for (const name of due) await database.db.execute(sql.raw(`VACUUM (SKIP_LOCKED) "${name}"`));
  return due;
}
