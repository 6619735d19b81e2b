#!/usr/bin/env node
// Runs every test file with node's test runner (through tsx). When TEST_DATABASE_URL or DATABASE_URL
// points at PostgreSQL, a fresh database is created for the run and dropped after it, so no existing
// data is touched; otherwise the tests use embedded PostgreSQL (PGlite) in memory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import pg from 'pg';
import { databaseFreeTests } from './database-free-tests.mjs';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const allFiles = ['src', 'test', 'packages']
  .flatMap((d) => {
    try {
      return findTests(join(root, d));
    } catch {
      return [];
    }
  })
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

// CI runs the suite twice, once per database (.ci/run). A file that cannot reach a database
// (scripts/database-free-tests.mjs) would check the same thing twice: with TEST_SKIP_DATABASE_FREE=1
// this pass leaves those files to the other pass and says so.
let files = allFiles;
if (process.env.TEST_SKIP_DATABASE_FREE === '1') {
  const free = databaseFreeTests(root, allFiles);
  files = allFiles.filter((f) => !free.has(f));
  if (free.size > 0)
    console.log(
      `Skipping ${free.size} database-free test files (TEST_SKIP_DATABASE_FREE=1: the other CI pass runs them):\n  ${[...free].join('\n  ')}`,
    );
}

const baseUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
let dbName;
let snapshot;
const env = { ...process.env };
delete env.DATABASE_URL;
if (baseUrl) {
  dbName = `payorders_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${dbName}`;
  env.TEST_DATABASE_URL = url.toString();
  console.log(`Testing on PostgreSQL (fresh database ${dbName})`);
} else {
  delete env.TEST_DATABASE_URL;
  // A new in-memory PGlite cluster costs seconds; every test file starts from one migrated dump.
  snapshot = join(mkdtempSync(join(tmpdir(), 'pglite-snapshot-')), 'migrated.tar');
  const made = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/pglite-snapshot.ts', snapshot], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  if (made.status !== 0) process.exit(made.status ?? 1);
  env.TEST_PGLITE_SNAPSHOT = snapshot;
  console.log('Testing on embedded PostgreSQL (PGlite, in memory, from one migrated dump)');
}

const run = (list, concurrency) =>
  list.length === 0
    ? { status: 0 }
    : spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--test',
          `--test-concurrency=${concurrency}`,
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          // The slowest files, printed after the spec output (scripts/slowest-files-reporter.mjs).
          `--test-reporter=${join(root, 'scripts/slowest-files-reporter.mjs')}`,
          '--test-reporter-destination=stdout',
          ...list,
        ],
        { cwd: root, env, stdio: 'inherit' },
      );
// No test stops, restarts or drops anything it did not create (a test that takes PostgreSQL away
// starts a server of its own: test/helpers/own-postgres.ts), so every file runs in the one pool.
const first = run(files, 2);
const result = { status: first.status };

if (dbName) {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}
if (snapshot) rmSync(dirname(snapshot), { recursive: true, force: true });
process.exit(result.status ?? 1);
