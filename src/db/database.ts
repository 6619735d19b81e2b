import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { acquireDirectoryLock } from '../lib/directory-lock.js';

/** The database handle every repository takes: the same query builder over node-postgres or PGlite. */
export type Db = PgDatabase<PgQueryResultHKT>;
export type Tx = PgTransaction<PgQueryResultHKT>;
/** Either the database or an open transaction: repository functions accept both. */
export type Executor = Db | Tx;

export interface Database {
  readonly db: Db;
  /** How many statements `db` runs at once: its pool's size (`DB_POOL_SIZE`; PGlite: 1, one at a time). */
  readonly dbConnections: number;
  /**
   * For the few hot statements whose plan does not depend on their parameters (the requisite claim):
   * on PostgreSQL, a pool of its own whose connections plan each prepared statement once
   * (`plan_cache_mode = force_generic_plan`); PostgreSQL's default re-planned the claim at every
   * order (docs/decisions.md "Plans made once for the claim"). On PGlite, `db` itself.
   */
  readonly genericPlans: Db;
  /** How many statements `genericPlans` runs at once: its pool's size (PGlite: 1, one at a time). */
  readonly genericPlansConnections: number;
  /** Milliseconds a request waits for a connection before SERVICE_UNAVAILABLE (OpenOptions.acquireTimeoutMs). */
  readonly acquireTimeoutMs: number;
  readonly kind: 'postgres' | 'pglite';
  /** The directory an embedded database keeps its files in (undefined: PostgreSQL, or in memory). */
  readonly directory: string | undefined;
  /** Pool statistics for metrics; zeros on PGlite. */
  poolStats(): { total: number; idle: number; waiting: number };
  /**
   * Calls `handler` on every NOTIFY on `channel` from any process (PostgreSQL), or from this one
   * (PGlite, which one process owns). Returns the function that stops listening.
   */
  listen(channel: string, handler: () => void): Promise<() => Promise<void>>;
  /** Resolves when a trivial query succeeds; rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Runs `fn` only if no process holds the session advisory lock named `name` (PostgreSQL: held on a
   * connection of its own while `fn` runs, released if the process dies; PGlite: within this
   * process). Answers `fn`'s result, or `{ skipped: true }` when another holder has it.
   */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<{ skipped: false; value: T } | { skipped: true }>;
  close(): Promise<void>;
}

/** NOTIFY channel telling every process to drop cached merchant keys and operator tokens. */
export const CACHE_CHANNEL = 'payment_orders_cache';

/** NOTIFY channel telling the webhook dispatchers that an outbox row is due (sent on commit). */
export const OUTBOX_CHANNEL = 'payment_orders_outbox';

/**
 * Sends a NOTIFY on `channel` from inside the caller's transaction: PostgreSQL delivers it to every
 * listening process when (and only if) the transaction commits.
 */
export async function notify(
  ex: Executor,
  channel: typeof CACHE_CHANNEL | typeof OUTBOX_CHANNEL,
): Promise<void> {
  await ex.execute(sql`SELECT pg_notify(${channel}, '')`);
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Key of the advisory lock that serialises migrations of concurrently starting processes. */
const MIGRATION_LOCK_KEY = 727_401_001;

function loggerOf(options: OpenOptions) {
  const log = options.logQuery;
  return log ? { logger: { logQuery: (query: string, params: unknown[]) => log(query, params) } } : {};
}

/** Returns the rows of a `db.execute` result for both drivers (both expose `.rows`). */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

export interface OpenOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; `undefined` means in memory (tests). */
  dataDir?: string | undefined;
  poolSize?: number;
  /**
   * Milliseconds a request waits for a free connection before SERVICE_UNAVAILABLE (default 5000).
   * Tests that queue hundreds of requests on one lock on purpose wait longer: they check money, not
   * how fast the service sheds load.
   */
  acquireTimeoutMs?: number;
  /** Whether to apply pending migrations (default true). */
  migrate?: boolean;
  /**
   * PGlite only, in memory: start from this dump of a data directory (PGlite's `dumpDataDir`)
   * instead of a new cluster. The tests make one migrated dump per run (scripts/run-tests.mjs):
   * a new in-memory cluster costs seconds of every test file's start.
   */
  pgliteSnapshot?: Blob | undefined;
  /** Told the text of every statement run through drizzle (tests count statements with it). */
  logQuery?: (query: string, params: unknown[]) => void;
}

/**
 * Opens the store of record: real PostgreSQL when `databaseUrl` is given, else PGlite in
 * `<dataDir>/pgdata` guarded by a lock file so that two processes never open the same directory.
 * Migrations (drizzle-kit folder) run before it returns; concurrent starts on PostgreSQL take turns.
 */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openPglite(options);
}

/**
 * A pool of up to `max` connections to `url`, opened on demand. A client losing its server (a
 * PostgreSQL restart) must not crash the process: idle ones report on the pool, clients in use (a
 * transaction between statements) on themselves; the query fails anyway.
 */
function newPool(url: string, max: number, options: OpenOptions, extra: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: options.acquireTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    ...extra,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  if (options.migrate !== false) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      await migrateNodePg(drizzleNodePg(client), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
      await client.end();
    }
  }
  const pool = newPool(url, options.poolSize ?? 10, options);
  const db = drizzleNodePg(pool, loggerOf(options)) as unknown as Db;
  // Half the general pool's size, opened on demand: a process that runs no claim opens none.
  const genericPlansConnections = Math.ceil((options.poolSize ?? 10) / 2);
  const genericPool = newPool(url, genericPlansConnections, options, {
    // JIT compiles a plan at each execution once its estimated cost passes jit_above_cost: a
    // batch's claim, whose row count the generic plan cannot know, passed it with a few hundred
    // requisites and took 40 ms per statement to compile (docs/decisions.md "Orders claimed in batches").
    options: '-c plan_cache_mode=force_generic_plan -c jit=off',
  });
  const genericPlans = drizzleNodePg(genericPool, loggerOf(options)) as unknown as Db;
  return {
    db,
    dbConnections: options.poolSize ?? 10,
    genericPlans,
    genericPlansConnections,
    acquireTimeoutMs: options.acquireTimeoutMs ?? 5000,
    kind: 'postgres',
    directory: undefined,
    listen: (channel, handler) => listenPostgres(url, channel, handler),
    poolStats: () => ({
      total: pool.totalCount + genericPool.totalCount,
      idle: pool.idleCount + genericPool.idleCount,
      waiting: pool.waitingCount + genericPool.waitingCount,
    }),
    async withLock(name, fn) {
      const client = await pool.connect();
      try {
        const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
          name,
        ]);
        if (!got.rows[0]?.ok) return { skipped: true };
        try {
          return { skipped: false, value: await fn() };
        } finally {
          await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).catch(() => undefined);
        }
      } finally {
        client.release();
      }
    },
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    close: async () => {
      await Promise.all([pool.end(), genericPool.end()]);
    },
  };
}

/**
 * LISTEN on a dedicated connection; after a lost connection it reconnects (every second) and calls
 * the handler once, since notifications sent meanwhile were missed.
 */
async function listenPostgres(
  url: string,
  channel: string,
  handler: () => void,
): Promise<() => Promise<void>> {
  if (!/^[a-z_]+$/.test(channel)) throw new Error('bad channel name');
  let stopped = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const retry = () => {
    if (!stopped) timer = setTimeout(() => void connect(true), 1000);
  };
  const connect = async (missed: boolean): Promise<void> => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (msg) => {
      if (msg.channel === channel) handler();
    });
    c.on('error', () => {
      void c.end().catch(() => undefined);
      retry();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      client = c;
      if (missed) handler();
    } catch {
      void c.end().catch(() => undefined);
      retry();
    }
  };
  await connect(false);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await client?.end().catch(() => undefined);
  };
}

async function openPglite(options: OpenOptions): Promise<Database> {
  // Loaded only here: a service on PostgreSQL never loads PGlite (a start's cost, docs/decisions.md
  // "A start that compiles nothing").
  const [{ PGlite }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ]);
  const held = new Set<string>();
  let release: (() => void) | undefined;
  let client: PGlite;
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    release = acquireDirectoryLock(options.dataDir);
    client = new PGlite(join(options.dataDir, 'pgdata'));
  } else {
    client = new PGlite(options.pgliteSnapshot ? { loadDataDir: options.pgliteSnapshot } : {});
  }
  try {
    await client.waitReady;
    const pdb = drizzlePglite(client, loggerOf(options));
    if (options.migrate !== false) await migratePglite(pdb, { migrationsFolder: MIGRATIONS_FOLDER });
    const db = pdb as unknown as Db;
    return {
      db,
      dbConnections: 1,
      genericPlans: db,
      genericPlansConnections: 1,
      acquireTimeoutMs: options.acquireTimeoutMs ?? 5000,
      kind: 'pglite',
      directory: options.dataDir,
      listen: async (channel, handler) => {
        const stop = await client.listen(channel, () => handler());
        return async () => {
          await stop().catch(() => undefined);
        };
      },
      poolStats: () => ({ total: 1, idle: 0, waiting: 0 }),
      async withLock(name, fn) {
        // One process owns an embedded database: a lock within it is a lock across all.
        if (held.has(name)) return { skipped: true };
        held.add(name);
        try {
          return { skipped: false, value: await fn() };
        } finally {
          held.delete(name);
        }
      },
      ping: async () => {
        await db.execute(sql`SELECT 1`);
      },
      close: async () => {
        await client.close();
        release?.();
      },
    };
  } catch (err) {
    release?.();
    throw err;
  }
}
