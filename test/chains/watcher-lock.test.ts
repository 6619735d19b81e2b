import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.js';
import { closeTestDatabase, testDatabase, testDatabaseUrl } from '../helpers/database.js';

// One instance per chain across all processes, by a PostgreSQL advisory lock (docs/decisions.md section 25). On
// PostgreSQL a second pool stands for a second process.
describe('a chain watcher loop runs in one process at a time (Database.withLock)', () => {
  after(() => closeTestDatabase());

  it('while one holder runs, every other caller is skipped; after it, the next one runs', async () => {
    const db = await testDatabase();
    const url = testDatabaseUrl();
    const other = url ? await openDatabase({ databaseUrl: url, poolSize: 2, migrate: false }) : db;
    try {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = db.withLock('chain-watcher:test', async () => {
        await held;
        return 'first';
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const tries = await Promise.all(
        [1, 2, 3, 4].map(() => other.withLock('chain-watcher:test', async () => 'second')),
      );
      assert.deepEqual(tries, [{ skipped: true }, { skipped: true }, { skipped: true }, { skipped: true }]);
      const another = await other.withLock('chain-watcher:other-chain', async () => 'other chain');
      assert.deepEqual(another, { skipped: false, value: 'other chain' });
      release();
      assert.deepEqual(await first, { skipped: false, value: 'first' });
      assert.deepEqual(await other.withLock('chain-watcher:test', async () => 'after'), {
        skipped: false,
        value: 'after',
      });
    } finally {
      if (other !== db) await other.close();
    }
  });

  it('a loop that throws releases the lock', async () => {
    const db = await testDatabase();
    await assert.rejects(
      db.withLock('chain-watcher:throws', async () => {
        throw new Error('provider down');
      }),
      /provider down/,
    );
    assert.deepEqual(await db.withLock('chain-watcher:throws', async () => 1), { skipped: false, value: 1 });
  });
});
