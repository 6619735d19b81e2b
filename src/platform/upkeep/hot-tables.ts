import { sql } from 'drizzle-orm';
import { type Database, rowsOf } from '../../db/database.js';

/** Dead row versions of a hot table above which it is vacuumed (PostgreSQL). */
export const HOT_TABLE_MIN_DEAD = 500;

/**
 * Vacuums the hot tables that need it, whatever the server's autovacuum does (it may be off, or
 * wake once a minute; docs/decisions.md "The requisite claim under load"). Hot tables are those
 * whose few rows every order or payment rewrites (each requisite's `last_order_seq`, balances,
 * holders' held amounts, phones' heartbeats): each rewrite leaves a dead row version, and the
 * claim reads the requisites' LRU index from its head, where the dead versions gather.
 * `tables` are table names (the owning modules export them). On PostgreSQL, those with at least
 * `minDead` dead versions by the statistics (at most a second old), each `VACUUM (SKIP_LOCKED)` so
 * that a vacuum running elsewhere is not waited for; on PGlite, which keeps no live statistics,
 * every one. Answers the names vacuumed. Throws the driver's error (the periodic job logs it).
 */
export async function vacuumHotTables(
  database: Pick<Database, 'db' | 'kind'>,
  tables: readonly string[],
  minDead = HOT_TABLE_MIN_DEAD,
): Promise<string[]> {
  let due = [...tables];
  if (database.kind === 'postgres') {
    const stats = rowsOf<{ relname: string; dead: string }>(
      await database.db.execute(sql`SELECT relname, n_dead_tup AS dead FROM pg_stat_user_tables
        WHERE schemaname = current_schema() AND relname = ANY(${`{${tables.join(',')}}`}::text[])`),
    );
    due = stats.filter((s) => Number(s.dead) >= minDead).map((s) => s.relname);
  }
  for (const name of due) await database.db.execute(sql.raw(`VACUUM (SKIP_LOCKED) "${name}"`));
  return due;
}
