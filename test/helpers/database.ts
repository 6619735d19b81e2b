import { type Database, openDatabase } from '../../src/db/database.js';

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
  shared ??= openDatabase({ databaseUrl: testDatabaseUrl(), poolSize: 20 });
  return shared;
}

export const onPostgres = (): boolean => testDatabaseUrl() !== undefined;

/** Closes the process's test database (the next `testDatabase()` opens a new one). */
export async function closeTestDatabase(): Promise<void> {
  const current = shared;
  shared = undefined;
  if (current) await (await current).close();
}
