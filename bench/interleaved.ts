/**
 * `npx tsx bench/interleaved.ts`: two builds of the service side by side, for changes smaller than
 * the machine's drift (docs/decisions.md sections 55 and 56). Starts build A (`AB_A`, a directory
 * holding a compiled main.js; default dist) and build B (`AB_B`, default dist) on one fresh
 * database, with a worker and the bare baseline, and extra environment for A from `AB_A_ENV`
 * (JSON). Fills the orders table with AB_CREATE_SECONDS (default 5) of createOrder, then runs
 * AB_ROUNDS (default 4) rounds of BENCH_SECONDS (default 5) at 64 connections: A, B, then the bare
 * route, A and B swapping places each round. AB_LOAD=create measures createOrder against the bare
 * INSERT; otherwise GET order against the bare SELECT. BENCH_POOLS sets the pool (default 50). Prints each round and the medians: req/s,
 * p99 and the server process's CPU milliseconds per request. Build a second directory with
 * `npm run build && cp -r dist dist-b` before changing the code.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { addPhonePool, benchMerchant } from './fixtures.js';
import { cpuOf, startServer } from './processes.js';
import { createOrderLoad, readOrderLoad, shuffled } from './requests.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 4);
const CREATE_SECONDS = Number(process.env.AB_CREATE_SECONDS ?? 5);
const CREATE = process.env.AB_LOAD === 'create';
const CONNECTIONS = 64;
const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = new URL('..', import.meta.url).pathname;
const ADMIN_TOKEN = `bench-admin-${randomUUID()}`;
const SECRET_KEY = 'bench-secret-key-0123456789abcdef0123456789';

const dbName = `bench_interleaved_${Date.now()}`;
const admin = new pg.Client({ connectionString: BASE_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(BASE_URL);
url.pathname = `/${dbName}`;
const env = {
  HOST: '127.0.0.1',
  DATABASE_URL: url.toString(),
  LOG_LEVEL: 'error',
  RATE_LIMITS: 'false',
  ADMIN_TOKEN,
  SECRET_KEY,
};
const service = (dir: string, extra: Record<string, string>) =>
  startServer(
    ROOT,
    ['--max-old-space-size=160', `${dir}/main.js`],
    { ...env, RUN_JOBS: 'false', ...extra },
    '/readyz',
  );
const a = await service(process.env.AB_A ?? 'dist', JSON.parse(process.env.AB_A_ENV ?? '{}'));
const b = await service(process.env.AB_B ?? 'dist', {});
const worker = spawn(process.execPath, ['--max-old-space-size=160', 'dist/worker.js'], {
  cwd: ROOT,
  env: { PATH: process.env.PATH ?? '', HOME: '/tmp', ...env },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const merchant = await benchMerchant(a.base, ADMIN_TOKEN, 'ab');
const db = new pg.Client({ connectionString: url.toString() });
await db.connect();
await addPhonePool(db, Number(process.env.BENCH_POOLS ?? 50));
await autocannon({
  url: a.base,
  connections: CONNECTIONS,
  duration: CREATE_SECONDS,
  ...createOrderLoad(merchant, '/merchant/createOrder'),
});
const bare = await startServer(
  ROOT,
  ['--import', 'tsx', 'bench/baseline-server.ts'],
  { DATABASE_URL: url.toString(), MERCHANT_ID: merchant.id },
  '/select/x',
);
const { rows } = await db.query<{ id: string; external_id: string }>(
  'SELECT id, external_id FROM orders WHERE merchant_id = $1 LIMIT 20000',
  [merchant.id],
);
const targets = shuffled(rows.map((r) => ({ id: r.id, externalId: r.external_id })));
const servers = { A: a, B: b, bare };
type Name = keyof typeof servers;
const loadOf = (name: Name): Partial<autocannon.Options> =>
  CREATE
    ? createOrderLoad(merchant, name === 'bare' ? '/insert' : '/merchant/createOrder')
    : readOrderLoad(merchant, name === 'bare' ? '/select/' : '/merchant/order/', targets);

// Warm-up, not recorded: each server's first second pays for JIT and new connections.
for (const name of ['A', 'B', 'bare'] as const)
  await autocannon({ url: servers[name].base, connections: CONNECTIONS, duration: 1, ...loadOf(name) });
const results: Record<Name, Array<{ rps: number; p99: number; cpu: number }>> = { A: [], B: [], bare: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order: Name[] = round % 2 === 0 ? ['A', 'B', 'bare'] : ['B', 'A', 'bare'];
  for (const name of order) {
    const pid = servers[name].child.pid ?? 0;
    const cpu0 = cpuOf(pid);
    const r = await autocannon({
      url: servers[name].base,
      connections: CONNECTIONS,
      duration: SECONDS,
      ...loadOf(name),
    });
    const cpu = (cpuOf(pid) - cpu0) / r.requests.total;
    results[name].push({ rps: Math.round(r.requests.average), p99: r.latency.p99, cpu });
    console.log(
      `round ${round} ${name}: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms, ${cpu.toFixed(3)} ms CPU/request, non-2xx ${r.non2xx + r.errors}`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
const bareRps = median(results.bare.map((r) => r.rps));
for (const name of ['A', 'B', 'bare'] as const) {
  const rps = median(results[name].map((r) => r.rps));
  console.log(
    `${name}: median ${rps} req/s, p99 ${median(results[name].map((r) => r.p99))} ms, ${median(results[name].map((r) => r.cpu)).toFixed(3)} ms CPU/request, ${Math.round((rps / bareRps) * 100)} % of the bare route`,
  );
}

worker.kill('SIGTERM');
for (const s of Object.values(servers)) s.child.kill('SIGTERM');
await db.end();
await new Promise((r) => setTimeout(r, 500));
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
