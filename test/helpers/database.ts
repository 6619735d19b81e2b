import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, type Db, openDatabase } from '../../src/db/database.js';

let shared: Promise<Database> | undefined;

/** The test database URL: set by `npm test` (a fresh database per run) when PostgreSQL is configured. */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

/**
 * One database per test process: real PostgreSQL when TEST_DATABASE_URL is set, else an in-memory
 * PGlite. Tests isolate by creating their own merchants, never by resetting tables.
 */
export function testDatabase(): Promise<Database> {
  // A machine loaded by a whole suite serves 200 orders queued on one lock in over 5 s: tests wait
  // for a connection as long as they need (the service's own 5 s limit is for production).
  shared ??= openDatabase({
    databaseUrl: testDatabaseUrl(),
    poolSize: 20,
    acquireTimeoutMs: 30_000,
    pgliteSnapshot: pgliteSnapshot(),
  });
  return shared;
}

/**
 * The migrated PGlite dump `npm test` makes once per run (TEST_PGLITE_SNAPSHOT, scripts/run-tests.mjs),
 * or undefined (a test file run alone migrates a new cluster, as before).
 */
export function pgliteSnapshot(): Blob | undefined {
  const path = process.env.TEST_PGLITE_SNAPSHOT;
  return path ? new Blob([readFileSync(path)]) : undefined;
}

export const onPostgres = (): boolean => testDatabaseUrl() !== undefined;

/**
 * The `skip` option of a test that cannot run on the embedded database: false on PostgreSQL, else a
 * message that the runner prints beside the skipped test, saying why and where it runs (CI runs the
 * suite on both databases: .ci/run).
 */
export function needsPostgres(why: string): false | string {
  return onPostgres() ? false : `PostgreSQL only: ${why} (runs with TEST_DATABASE_URL, as CI does)`;
}

/** The converse of `needsPostgres`: a test that runs on the embedded database only, and why. */
export function needsEmbedded(why: string): false | string {
  return onPostgres() ? `embedded database only: ${why}` : false;
}

/** Closes the process's test database (the next `testDatabase()` opens a new one). */
export async function closeTestDatabase(): Promise<void> {
  const current = shared;
  shared = undefined;
  if (current) await (await current).close();
}

/**
 * A fresh database on the test PostgreSQL server, named `<tag>_<pid>_<time>`: its URL and the function
 * that drops it. Throws when the tests run on PGlite.
 */
export async function createPrivateDatabase(
  tag: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = testDatabaseUrl();
  if (!base) throw new Error('createPrivateDatabase needs TEST_DATABASE_URL');
  const name = `${tag}_${process.pid}_${Date.now()}`;
  const run = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * PostgreSQL only: gives the calling test file a database of its own (switching TEST_DATABASE_URL
 * before its first `testDatabase()`). Needed where a file runs dispatchers or sweeps that claim every
 * due row in their database. Returns the cleanup; a no-op on PGlite (already one database per process).
 */
export async function isolateDatabase(tag: string): Promise<() => Promise<void>> {
  if (!testDatabaseUrl()) return async () => undefined;
  const { url, drop } = await createPrivateDatabase(tag);
  process.env.TEST_DATABASE_URL = url;
  return drop;
}

/**
 * Takes `LOCK TABLE orders IN <mode> MODE` in a transaction of its own on `db` and holds it: resolves
 * once the lock is held, with `release`, which ends that transaction and resolves when it has.
 * For tests of what waits behind a statement that cannot proceed.
 */
export async function holdOrdersLock(
  db: Db,
  mode: 'EXCLUSIVE' | 'ACCESS EXCLUSIVE',
): Promise<{ release: () => Promise<void> }> {
  let end = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  let locked = () => {};
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const holder = db.transaction(async (tx) => {
    await tx.execute(sql.raw(`LOCK TABLE orders IN ${mode} MODE`));
    locked();
    await ended;
  });
  await Promise.race([isLocked, holder]);
  return {
    release: async () => {
      end();
      await holder;
    },
  };
}
