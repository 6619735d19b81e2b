import { randomBytes } from 'node:crypto';
import { Address } from '@ton/core';
import pg from 'pg';
import { onPostgres, testDatabaseUrl } from './database.js';

/** A fresh, valid TON address (workchain 0, random account) in its non-bounceable form (`UQ...`). */
export function tonAddress(): string {
  return new Address(0, randomBytes(32)).toString({ bounceable: false, urlSafe: true });
}

/**
 * Runs `fn` holding the TON pool for this test file: on a shared PostgreSQL, test files that load
 * pool addresses and create TON orders take turns (a session advisory lock), so that each order gets
 * the address its file just loaded. On PGlite each file has its own database: `fn` just runs.
 */
export async function withTonPool<T>(fn: () => Promise<T>): Promise<T> {
  if (!onPostgres()) return fn();
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(77001)');
    return await fn();
  } finally {
    await client.end();
  }
}
