/**
 * `tsx scripts/pglite-snapshot.ts <file>`: writes a dump of an in-memory PGlite with every migration
 * applied, for the tests' embedded databases to start from (scripts/run-tests.mjs, test/helpers/database.ts).
 */
import { writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { MIGRATIONS_FOLDER } from '../src/db/database.js';

const out = process.argv[2];
if (!out) throw new Error('usage: tsx scripts/pglite-snapshot.ts <file>');
const client = new PGlite();
await client.waitReady;
await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
const dump = await client.dumpDataDir('none');
writeFileSync(out, Buffer.from(await dump.arrayBuffer()));
await client.close();
