/**
 * `npx tsx bench/cpu-split.ts`: where a createOrder's and a GET's cost goes, next to the bare
 * baseline's. Runs each load for BENCH_SECONDS (default 5) at BENCH_CONNECTIONS (default 64) and prints,
 * per request: CPU milliseconds of the server process, of PostgreSQL's processes and of the load
 * generator, transactions committed, rows written and WAL bytes. On a 2-core machine the sum of the
 * CPU columns bounds the throughput (2,000 ms of CPU per second). Needs `npm run build` first.
 * BENCH_ONLY=create measures createOrder alone; BENCH_ONLY=get createOrder (to have orders) and GET,
 * without the bare routes. BENCH_CPU_PROF=<dir> writes the service's V8 CPU profile there.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { addPhonePool, benchMerchant } from './fixtures.js';
import { cpuOf, startServer, TICK_MS } from './processes.js';
import { createOrderLoad, readOrderLoad, shuffled, sign } from './requests.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const POOL = Number(process.env.BENCH_POOLS ?? 50);
const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = new URL('..', import.meta.url).pathname;
const ADMIN_TOKEN = `bench-admin-${randomUUID()}`;

/** CPU milliseconds of every postgres process (the server and its backends, gone ones excluded). */
function postgresCpu(): number {
  let sum = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').startsWith('postgres')) sum += cpuOf(Number(d));
    } catch {
      // gone
    }
  }
  return sum;
}

/** Starts `node <args>` (the service, or the bare baseline) and waits until it answers. */
const start = (args: string[], env: Record<string, string>) =>
  startServer(ROOT, args, env, args.includes('dist/main.js') ? '/readyz' : '/select/x');

const dbName = `bench_split_${Date.now()}`;
const admin = new pg.Client({ connectionString: BASE_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(BASE_URL);
url.pathname = `/${dbName}`;
const profile = process.env.BENCH_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
  : [];
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const svc = await start([...profile, ...nodeArgs, '--max-old-space-size=160', 'dist/main.js'], {
  HOST: '127.0.0.1',
  DATABASE_URL: url.toString(),
  LOG_LEVEL: 'error',
  RATE_LIMITS: 'false',
  RUN_JOBS: 'false',
  ADMIN_TOKEN,
  SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
  ...(process.env.DB_POOL_SIZE ? { DB_POOL_SIZE: process.env.DB_POOL_SIZE } : {}),
});
// The worker beside the service, as deployed: its jobs (the hot tables' vacuum among them) run under load.
const worker = spawn(process.execPath, ['--max-old-space-size=160', 'dist/worker.js'], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    HOME: '/tmp',
    DATABASE_URL: url.toString(),
    LOG_LEVEL: 'error',
    ADMIN_TOKEN,
    SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const merchant = await benchMerchant(svc.base, ADMIN_TOKEN, 'split');
const db = new pg.Client({ connectionString: url.toString() });
await db.connect();
await addPhonePool(db, POOL);
// One order so that the baseline can copy a row.
await fetch(`${svc.base}/merchant/createOrder`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'client-api-key': merchant.key,
    'x-api-key': sign(merchant.key, JSON.stringify({ merchant_id: merchant.id, amount: 777, type: 'sim' })),
  },
  body: JSON.stringify({ merchant_id: merchant.id, amount: 777, type: 'sim' }),
});
const base = await start(['--import', 'tsx', 'bench/baseline-server.ts'], {
  DATABASE_URL: url.toString(),
  MERCHANT_ID: merchant.id,
});

async function stats() {
  const { rows } = await db.query<{ c: string; ins: string; upd: string; wal: string }>(
    `SELECT d.xact_commit AS c, d.tup_inserted AS ins, d.tup_updated AS upd,
       (SELECT wal_bytes FROM pg_stat_wal) AS wal FROM pg_stat_database d WHERE datname = $1`,
    [dbName],
  );
  return rows[0] as { c: string; ins: string; upd: string; wal: string };
}

/** CPU milliseconds per thread name of the process `pid`. */
function threadsCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      const comm = readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
      const f = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      out[`${comm}#${t}`] = (out[`${comm}#${t}`] ?? 0) + (Number(f[11]) + Number(f[12])) * TICK_MS;
    }
  } catch {
    // gone
  }
  return out;
}

async function measure(name: string, server: number, target: string, opts: Partial<autocannon.Options>) {
  await db.query('SELECT pg_stat_clear_snapshot()');
  const s0 = await stats();
  const t0 = threadsCpu(server);
  const c0 = { sys: cpuOf(server, true), server: cpuOf(server), pg: postgresCpu(), self: cpuOf(process.pid) };
  const r = await autocannon({ url: target, connections: CONNECTIONS, duration: SECONDS, ...opts });
  const t1 = threadsCpu(server);
  const c1 = { sys: cpuOf(server, true), server: cpuOf(server), pg: postgresCpu(), self: cpuOf(process.pid) };
  if (process.env.BENCH_THREADS)
    console.error(
      Object.entries(t1)
        .map(([k, v]) => `${k}: ${((v - (t0[k] ?? 0)) / r.requests.total).toFixed(3)}`)
        .join(', '),
    );
  await new Promise((r) => setTimeout(r, 700));
  await db.query('SELECT pg_stat_clear_snapshot()');
  const s1 = await stats();
  const n = r.requests.total;
  const per = (a: number, b: number) => ((b - a) / n).toFixed(3);
  console.log(
    `| ${name} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${per(c0.server, c1.server)} (system ${per(c0.sys, c1.sys)}) | ${per(c0.pg, c1.pg)} | ${per(c0.self, c1.self)} | ${per(Number(s0.c), Number(s1.c))} | ${per(Number(s0.ins), Number(s1.ins))} | ${per(Number(s0.upd), Number(s1.upd))} | ${Math.round((Number(s1.wal) - Number(s0.wal)) / n)} | ${r.non2xx + r.errors} |`,
  );
}

console.log(`\n${POOL} requisites, ${CONNECTIONS} connections, ${SECONDS} s each\n`);
console.log(
  '| load | req/s | p50 ms | p99 ms | server CPU ms/req | PostgreSQL CPU ms/req | load generator CPU ms/req | commits/req | rows inserted/req | rows updated/req | WAL B/req | non-2xx |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
const svcPid = svc.child.pid ?? 0;
const basePid = base.child.pid ?? 0;
await measure('createOrder (service)', svcPid, svc.base, createOrderLoad(merchant, '/merchant/createOrder'));
const only = process.env.BENCH_ONLY;
if (!only) await measure('INSERT (bare)', basePid, base.base, createOrderLoad(merchant, '/insert'));
const { rows } = await db.query<{ id: string; external_id: string }>(
  'SELECT id, external_id FROM orders WHERE merchant_id = $1 LIMIT 20000',
  [merchant.id],
);
const targets = shuffled(rows.map((r) => ({ id: r.id, externalId: r.external_id })));
if (only !== 'create')
  await measure(
    'GET order (service)',
    svcPid,
    svc.base,
    readOrderLoad(merchant, '/merchant/order/', targets),
  );
if (!only) await measure('SELECT (bare)', basePid, base.base, readOrderLoad(merchant, '/select/', targets));

worker.kill('SIGTERM');
svc.child.kill('SIGTERM');
await new Promise((r) => svc.child.once('exit', r));
base.child.kill();
await db.end();
await new Promise((r) => setTimeout(r, 500));
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
