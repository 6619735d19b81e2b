/**
 * `npm run bench` : the service and a bare baseline, each in its own process, loaded from this
 * process with autocannon over loopback; PostgreSQL (BENCH_DATABASE_URL, default the local test server,
 * in a fresh database) and PGlite for reference. Prints one markdown table with the targets.
 * BENCH_SECONDS (default 5) per measurement; BENCH_CONNECTIONS (default 1,16,64) and
 * BENCH_PGLITE=false narrow a run while iterating; the judged levels (16 and up) are measured
 * BENCH_ROUNDS (default 3) times and reported by their median. The service runs compiled (`npm run
 * bench` builds). Loads are shaped like merchants' (bench/requests.ts): new orders with new bodies and
 * signatures, reads of many distinct orders by internal id and by order_id, and the same client work
 * for the bare baseline routes. The service's pool grows between series: BENCH_POOLS (default
 * 50,500,5000 requisites) each measured at every level, so the table shows whether createOrder's cost
 * grows with the pool. BENCH_QUICK=1 is a short run for iterating (2 s, one round, 64 connections,
 * no PGlite, no webhooks) unless the other variables say otherwise. A bank-message scenario
 * (bench/bank-messages.ts) prints the time from a phone's SMS report to the order's success.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { type BankMessageResult, benchBankMessages } from './bank-messages.js';
import {
  type BenchMerchant,
  createOrderLoad,
  type ReadTarget,
  readOrderLoad,
  shuffled,
  sign,
} from './requests.js';
import { benchWebhooks } from './webhooks.js';

const QUICK = ['1', 'true'].includes(process.env.BENCH_QUICK ?? '');
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 5));
const LEVELS = (process.env.BENCH_CONNECTIONS ?? (QUICK ? '64' : '1,16,64')).split(',').map(Number);
/** The pool sizes measured, requisites of the one currency and kind the load asks for. */
const POOLS = (process.env.BENCH_POOLS ?? '50,500,5000').split(',').map(Number);
const TOP = Math.max(...LEVELS);
/** The levels the targets are judged at : 16 connections and up. */
const JUDGED = Math.min(16, TOP);
const WITH_PGLITE = process.env.BENCH_PGLITE ? process.env.BENCH_PGLITE !== 'false' : !QUICK;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ADMIN_TOKEN = `bench-admin-${randomUUID()}`;
const ROOT = new URL('..', import.meta.url).pathname;
const children: ChildProcess[] = [];

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

function rssMb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return Math.round(Number(line?.replace(/\D/g, '') ?? 0) / 1024);
  } catch {
    return 0;
  }
}

async function waitReady(url: string, t0: number): Promise<number> {
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return Date.now() - t0;
    } catch {
      // not yet listening
    }
    if (Date.now() - t0 > 60_000) throw new Error(`${url} not ready`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The environment of the bench's service and worker processes. */
function processEnv(env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    LOG_LEVEL: 'error',
    RATE_LIMITS: 'false',
    ADMIN_TOKEN,
    SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
    ...env,
  };
}

/** Starts the service; returns its base URL, pid and time to ready (ms). */
async function startService(env: Record<string, string>) {
  const port = await freePort();
  const t0 = Date.now();
  // The production way (README "Deployment"): the compiled service with its heap cap.
  // BENCH_CPU_PROF=<dir> writes the service's V8 CPU profile there when it stops (open in DevTools).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const child = spawn(process.execPath, [...profile, '--max-old-space-size=160', 'dist/main.js'], {
    cwd: ROOT,
    env: processEnv({ HOST: '127.0.0.1', PORT: String(port), RUN_JOBS: 'false', ...env }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  const readyMs = await waitReady(`${base}/readyz`, t0);
  return { base, pid: child.pid, readyMs };
}

/**
 * Starts a worker beside the service on PostgreSQL, as deployed (README "Deployment": API processes
 * with RUN_JOBS=false and a worker): its jobs, the hot tables' vacuum among them, run under the load.
 */
function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--max-old-space-size=160', 'dist/worker.js'], {
    cwd: ROOT,
    env: processEnv(env),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
}

async function admin(base: string, path: string, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json.data;
}

/** A merchant with plenty of requisites; returns its id and key. */
async function setup(base: string) {
  const id = `bench_${randomUUID().slice(0, 8)}`;
  const { api_key: key } = (await admin(base, '/admin/merchants', { merchant_id: id })) as {
    api_key: string;
  };
  for (let i = 0; i < 50; i++) {
    await admin(base, '/admin/requisites', {
      kind: 'phone',
      bank: 'Sberbank',
      address: `7${String(9000000000 + i)}`,
      holder_name: 'Bench',
      currency: 'RUB',
    });
  }
  return { id, key: String(key) };
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(
  url: string,
  connections: number,
  opts: Partial<autocannon.Options> = {},
  onTick?: () => void,
): Promise<Result> {
  const timer = onTick ? setInterval(onTick, 250) : undefined;
  const r = await autocannon({ url, connections, duration: SECONDS, ...opts });
  if (timer) clearInterval(timer);
  const non2xx = r.non2xx + r.errors + r.timeouts;
  if (non2xx > 0) {
    const codes = Object.entries(
      (r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
    )
      .map(([code, v]) => `${code}: ${v.count}`)
      .join(', ');
    console.error(
      `  ${url} at ${connections} connections: ${codes}; errors ${r.errors}, timeouts ${r.timeouts}`,
    );
  }
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: non2xx };
}

/** Up to 20,000 of the merchant's orders, shuffled: what the GET load reads. */
async function readTargets(db: pg.Client, merchantId: string): Promise<ReadTarget[]> {
  const { rows } = await db.query<{ id: string; external_id: string }>(
    'SELECT id, external_id FROM orders WHERE merchant_id = $1 LIMIT 20000',
    [merchantId],
  );
  return shuffled(rows.map((r) => ({ id: r.id, externalId: r.external_id })));
}

async function createOrderOnce(base: string, m: BenchMerchant): Promise<string> {
  const body = JSON.stringify({ merchant_id: m.id, amount: 777, type: 'sim' });
  const res = await fetch(`${base}/merchant/createOrder`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'client-api-key': m.key, 'x-api-key': sign(m.key, body) },
    body,
  });
  return ((await res.json()) as { id: string }).id;
}

type Results = Record<'create' | 'insert' | 'get' | 'select', Record<string, Result>>;
const key = (pool: number, connections: number) => `${pool}:${connections}`;

/**
 * Grows the service's pool to `size` phone requisites in RUB (what the load's `sim` orders take),
 * written straight to the table: a new requisite is never assigned, so it comes first in the claim.
 */
async function growPool(db: pg.Client, size: number) {
  const { rows: have } = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM requisites WHERE currency = 'RUB' AND kind = 'phone'",
  );
  const from = Number(have[0]?.n ?? 0);
  if (from >= size) return;
  await db.query(
    `INSERT INTO requisites (kind, bank, address, holder_name, currency)
     SELECT 'phone', 'Sberbank', '7' || (9100000000 + g)::text, 'Bench', 'RUB' FROM generate_series($1::int, $2::int - 1) AS g`,
    [from, size],
  );
  await db.query('ANALYZE requisites');
}

/**
 * One pool size at every level: the judged levels ROUNDS times, interleaved with their baseline, and
 * each series kept by its median (one sample on a shared 2-core machine moved a ratio by 25 points
 * between runs).
 */
async function measurePool(
  size: number,
  urls: { svc: string; baseline: string },
  merchant: BenchMerchant,
  db: pg.Client,
  results: Results,
  sampleRss: () => void,
) {
  const median = (samples: Result[]): Result =>
    [...samples].sort((a, b) => a.rps - b.rps)[Math.floor(samples.length / 2)] as Result;
  for (const c of LEVELS) {
    const rounds = c >= JUDGED ? ROUNDS : 1;
    const samples: Record<keyof Results, Result[]> = { create: [], insert: [], get: [], select: [] };
    for (let i = 0; i < rounds; i++) {
      samples.create.push(
        await load(urls.svc, c, createOrderLoad(merchant, '/merchant/createOrder'), sampleRss),
      );
      samples.insert.push(await load(urls.baseline, c, createOrderLoad(merchant, '/insert')));
      const targets = await readTargets(db, merchant.id);
      samples.get.push(
        await load(urls.svc, c, readOrderLoad(merchant, '/merchant/order/', targets), sampleRss),
      );
      samples.select.push(await load(urls.baseline, c, readOrderLoad(merchant, '/select/', targets)));
    }
    for (const k of ['create', 'insert', 'get', 'select'] as const)
      results[k][key(size, c)] = median(samples[k]);
  }
}

/** The PostgreSQL rows of the table, pool by pool and level by level. */
function addPostgresRows(results: Results) {
  for (const size of POOLS) {
    for (const c of LEVELS) {
      const at = key(size, c);
      const cr = results.create[at] as Result;
      const ins = results.insert[at] as Result;
      const g = results.get[at] as Result;
      const sel = results.select[at] as Result;
      const ratio = (a: Result, b: Result) => `${Math.round((a.rps / b.rps) * 100)} %`;
      row(
        'PostgreSQL',
        size,
        c,
        'createOrder',
        cr.rps,
        cr.p50,
        cr.p99,
        `${ins.rps} (INSERT, p50 ${ins.p50}, p99 ${ins.p99})`,
        ratio(cr, ins),
        cr.errors,
      );
      row(
        'PostgreSQL',
        size,
        c,
        'GET order',
        g.rps,
        g.p50,
        g.p99,
        `${sel.rps} (SELECT, p50 ${sel.p50}, p99 ${sel.p99})`,
        ratio(g, sel),
        g.errors,
      );
    }
  }
}

/** The results table, then the targets with met / MISSED. */
function printTables(
  results: Results,
  run: {
    peakRss: number;
    readyMs: number;
    restartReadyMs: number;
    liteReady: string;
    webhooksPerSecond: number | undefined;
    bankMessages: BankMessageResult;
  },
) {
  const ok = (b: boolean) => (b ? 'met' : 'MISSED');
  const pct = (a: Result, b: Result) => Math.round((a.rps / b.rps) * 100);
  const judged = LEVELS.filter((c) => c >= JUDGED);
  console.log(
    `\nBench: ${SECONDS} s per measurement (median of ${ROUNDS} at ${judged.join(' and ')} connections), pools of ${POOLS.join(', ')} requisites, 2-core machine, servers and load generator in separate processes.\n`,
  );
  console.log(
    '| database | requisites | connections | request | req/s | p50 ms | p99 ms | baseline req/s (p50, p99 ms) | ours/baseline | non-2xx |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log('\n| target | measured | |\n|---|---|---|');
  for (const size of POOLS) {
    for (const c of judged) {
      const createPct = pct(results.create[key(size, c)] as Result, results.insert[key(size, c)] as Result);
      const getPct = pct(results.get[key(size, c)] as Result, results.select[key(size, c)] as Result);
      console.log(
        `| ${size} requisites: createOrder >= 60 % of bare INSERT at ${c} connections | ${createPct} % | ${ok(createPct >= 60)} |`,
      );
      console.log(
        `| ${size} requisites: GET order >= 80 % of bare SELECT at ${c} connections | ${getPct} % | ${ok(getPct >= 80)} |`,
      );
    }
    const top = results.create[key(size, TOP)] as Result;
    const bare = results.insert[key(size, TOP)] as Result;
    console.log(
      `| ${size} requisites: createOrder p99 <= 40 ms at ${TOP} connections | ${top.p99} ms (bare INSERT ${bare.p99} ms) | ${ok(top.p99 <= 40)} |`,
    );
  }
  const tops = POOLS.map((size) => (results.create[key(size, TOP)] as Result).rps);
  const spread = Math.round(((Math.max(...tops) - Math.min(...tops)) / Math.max(...tops)) * 100);
  console.log(
    `| createOrder req/s of the pools within 10 % of each other at ${TOP} connections | ${tops.join(' / ')} (${spread} % apart) | ${ok(spread <= 10)} |`,
  );
  if (run.webhooksPerSecond !== undefined)
    console.log(
      `| webhooks >= 1,000 deliveries/s | ${run.webhooksPerSecond}/s | ${ok(run.webhooksPerSecond >= 1000)} |`,
    );
  const bm = run.bankMessages;
  console.log(
    `| bank SMS -> order success, one phone, ${bm.reported} SMS (${bm.confirmed} confirmed) | p50 ${bm.p50} ms, p95 ${bm.p95} ms | measured |`,
  );
  console.log(`| RSS under load <= 200 MB (PostgreSQL) | ${run.peakRss} MB | ${ok(run.peakRss <= 200)} |`);
  console.log(
    `| ready <= 1 s (PostgreSQL, a restart on the migrated database; PGlite for reference) | ${run.restartReadyMs} ms${run.liteReady} | ${ok(run.restartReadyMs <= 1000)} |`,
  );
  console.log(
    `| ready, first start on an empty PostgreSQL database (every migration) | ${run.readyMs} ms | measured |`,
  );
}

const rows: string[] = [];
const row = (...cells: Array<string | number>) => rows.push(`| ${cells.join(' | ')} |`);

async function main() {
  const dbName = `bench_${process.pid}_${Date.now()}`;
  const adminDb = new pg.Client({ connectionString: BASE_URL });
  await adminDb.connect();
  await adminDb.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${dbName}`;
  const dbUrl = url.toString();
  const pgliteDir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
  try {
    // --- PostgreSQL ------------------------------------------------------------------------------
    const svc = await startService({ DATABASE_URL: dbUrl });
    startWorker({ DATABASE_URL: dbUrl });
    const merchant = await setup(svc.base);
    const orderId = await createOrderOnce(svc.base, merchant);
    const basePort = await freePort();
    const baseline = spawn(process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: dbUrl, PORT: String(basePort), MERCHANT_ID: merchant.id },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(baseline);
    const baseUrl = `http://127.0.0.1:${basePort}`;
    await waitReady(`${baseUrl}/select/x`, Date.now()).catch(() => undefined);
    for (
      let i = 0;
      i < 100 &&
      (await fetch(`${baseUrl}/select/${orderId}`)
        .then((r) => r.status)
        .catch(() => 0)) !== 200;
      i++
    )
      await new Promise((r) => setTimeout(r, 100));

    let peakRss = 0;
    const sampleRss = () => {
      peakRss = Math.max(peakRss, rssMb(svc.pid));
    };
    const benchDb = new pg.Client({ connectionString: dbUrl });
    await benchDb.connect();
    const results: Results = { create: {}, insert: {}, get: {}, select: {} };
    // Warm-up, not recorded: the first series otherwise pays for JIT and new database connections.
    const warm = { duration: 1 };
    await load(svc.base, TOP, { ...createOrderLoad(merchant, '/merchant/createOrder'), ...warm });
    await load(baseUrl, TOP, { ...createOrderLoad(merchant, '/insert'), ...warm });
    const warmTargets = await readTargets(benchDb, merchant.id);
    await load(svc.base, TOP, { ...readOrderLoad(merchant, '/merchant/order/', warmTargets), ...warm });
    await load(baseUrl, TOP, { ...readOrderLoad(merchant, '/select/', warmTargets), ...warm });
    for (const size of POOLS) {
      await growPool(benchDb, size);
      await measurePool(size, { svc: svc.base, baseline: baseUrl }, merchant, benchDb, results, sampleRss);
    }
    await benchDb.end();
    addPostgresRows(results);
    // A second process on the now migrated database: how long a restart (or a new instance) takes.
    const restartReadyMs = (await startService({ DATABASE_URL: dbUrl })).readyMs;
    const bankMessages = await benchBankMessages(svc.base, ADMIN_TOKEN, merchant, QUICK ? 100 : 300);
    const wh = QUICK ? undefined : await benchWebhooks(5000);

    // --- PGlite, for reference -------------------------------------------------------------------
    let liteReady = '';
    if (WITH_PGLITE) {
      const lite = await startService({ DATA_DIR: pgliteDir });
      liteReady = ` (PGlite ${lite.readyMs} ms)`;
      const liteMerchant = await setup(lite.base);
      const lc = await load(lite.base, 16, createOrderLoad(liteMerchant, '/merchant/createOrder'));
      const listed = await fetch(`${lite.base}/merchant/orders?merchant_id=${liteMerchant.id}&size=100`, {
        headers: { 'client-api-key': liteMerchant.key, 'x-api-key': sign(liteMerchant.key, '') },
      });
      const { data } = (await listed.json()) as { data: { orders: Array<{ id: string; order_id: string }> } };
      const liteTargets = data.orders.map((o) => ({ id: o.id, externalId: o.order_id }));
      const lg = await load(lite.base, 16, readOrderLoad(liteMerchant, '/merchant/order/', liteTargets));
      row('PGlite', 50, 16, 'createOrder', lc.rps, lc.p50, lc.p99, '—', '—', lc.errors);
      row('PGlite', 50, 16, 'GET order', lg.rps, lg.p50, lg.p99, '—', '—', lg.errors);
    }

    printTables(results, {
      peakRss,
      readyMs: svc.readyMs,
      restartReadyMs,
      liteReady,
      webhooksPerSecond: wh?.perSecond,
      bankMessages,
    });
  } finally {
    // A graceful stop first, so a CPU profile (BENCH_CPU_PROF) is written.
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, process.env.BENCH_CPU_PROF ? 3000 : 300));
    for (const c of children) c.kill('SIGKILL');
    await adminDb.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await adminDb.end();
    rmSync(pgliteDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  for (const c of children) c.kill('SIGKILL');
  console.error(err);
  process.exit(1);
});
