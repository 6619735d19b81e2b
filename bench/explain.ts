/**
 * `npm run bench:explain` : where PostgreSQL spends a createOrder and a GET order. Seeds a
 * fresh database (BENCH_DATABASE_URL, default the local test server) with BENCH_REQUISITES (default
 * 50) requisites and BENCH_ORDERS (default 20,000) orders through the service, records the statements of one more
 * createOrder and of the two GET lookups, and prints `EXPLAIN (ANALYZE, BUFFERS)` of each (writes
 * rolled back), BENCH_EXPLAIN_RUNS (default 3) times each: the first run's time and buffers, then
 * the steady state's; a write once more after `VACUUM requisites`.
 */
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { testConfig } from '../test/helpers/app.js';
import { addRequisite, admin as adminApi, createMerchant, sign } from '../test/helpers/merchant-client.js';

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ORDERS = Number(process.env.BENCH_ORDERS ?? 20_000);
const REQUISITES = Number(process.env.BENCH_REQUISITES ?? 50);
/**
 * BENCH_HOLDERS (default 0): that many holders share the requisites round-robin, each with the limit
 * BENCH_HOLDER_LIMIT (RUB; unset: no limit), to see the holders' room in the claim's plan
 * (docs/decisions.md "Holders' limits in the claim").
 */
const HOLDERS = Number(process.env.BENCH_HOLDERS ?? 0);
const HOLDER_LIMIT = process.env.BENCH_HOLDER_LIMIT;
/** How many times each statement is explained (the last plan is printed). */
const RUNS = Number(process.env.BENCH_EXPLAIN_RUNS ?? 3);

const admin = new pg.Client({ connectionString: BASE_URL });
await admin.connect();
const name = `bench_explain_${process.pid}`;
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(BASE_URL);
url.pathname = `/${name}`;
let recording: Array<{ query: string; params: unknown[] }> | undefined;
const database = await openDatabase({
  databaseUrl: url.toString(),
  logQuery: (query, params) => recording?.push({ query, params }),
});
const { app } = await buildApp({ config: testConfig({ databaseUrl: url.toString() }), database });
await app.ready();
const client = new pg.Client({ connectionString: url.toString() });
try {
  const merchant = await createMerchant(app);
  const requisiteIds: string[] = [];
  for (let i = 0; i < REQUISITES; i++)
    requisiteIds.push((await addRequisite(app, { kind: 'phone', currency: 'RUB' })).id);
  for (let h = 0; h < HOLDERS; h++) {
    const holder = await adminApi<{ id: string }>(app, 'POST', '/admin/holders', {
      name: `Bench holder ${h}`,
      ...(HOLDER_LIMIT ? { exposure_limit: HOLDER_LIMIT } : {}),
    });
    const mine = requisiteIds.filter((_, i) => i % HOLDERS === h);
    await adminApi(app, 'PUT', `/admin/holders/${holder.id}/requisites`, { requisite_ids: mine });
  }
  const create = (n: number) => {
    const body = JSON.stringify({
      merchant_id: merchant.id,
      amount: 1000 + (n % 5000),
      type: 'sim',
      order_id: `e-${n}`,
    });
    return app.inject({
      method: 'POST',
      url: '/merchant/createOrder',
      payload: body,
      headers: {
        'content-type': 'application/json',
        'client-api-key': merchant.apiKey,
        'x-api-key': sign(merchant.apiKey, body),
      },
    });
  };
  for (let n = 0; n < ORDERS; n += 50) await Promise.all(Array.from({ length: 50 }, (_, i) => create(n + i)));
  const read = (id: string) =>
    app.inject({
      method: 'GET',
      url: `/merchant/order/${id}`,
      headers: { 'client-api-key': merchant.apiKey, 'x-api-key': sign(merchant.apiKey, '') },
    });
  recording = [];
  const created = (await create(ORDERS + 1)).json() as { id: string };
  await read(created.id);
  await read(`e-${ORDERS + 1}`);
  const statements = recording;
  recording = undefined;
  await client.connect();
  await client.query('ANALYZE');
  const held = HOLDERS ? `, ${HOLDERS} holders (limit ${HOLDER_LIMIT ?? 'none'})` : '';
  console.log(
    `${ORDERS} orders on ${REQUISITES} requisites${held}; ${statements.length} statements on the path:\n`,
  );
  for (const { query, params } of statements) {
    const writes = /^\s*(insert|update|delete|with)/i.test(query);
    // The recorded insert ran already: the same again with another id and order_id.
    // (The claim binds each column as an array, one element per order of its batch.)
    const swap = (p: unknown) => (p === created.id ? `${p}0` : p === `e-${ORDERS + 1}` ? 'e-explain' : p);
    const fresh = writes ? params.map((p) => (Array.isArray(p) ? p.map(swap) : swap(p))) : params;
    // The service plans the claim once per connection (docs/decisions.md section 54): so here.
    await client.query(`SET plan_cache_mode = ${/requisites/.test(query) ? 'force_generic_plan' : 'auto'}`);
    // Run RUNS times (writes rolled back): the first pays for hint bits and pages the load left
    // behind, the last shows the steady state; the plan printed is the last one's.
    const times: string[] = [];
    let plan: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      await client.query('BEGIN');
      const res = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${query}`, fresh);
      await client.query(writes ? 'ROLLBACK' : 'COMMIT');
      plan = res.rows.map((r) => r['QUERY PLAN']);
      const buffers = plan.find((l) => l.trim().startsWith('Buffers:'))?.trim() ?? '';
      const time = plan.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '';
      times.push(`${time} (${buffers})`);
    }
    if (writes) {
      // What autovacuum leaves: the versions the load's claims left at the head of the pick's index gone.
      await client.query('VACUUM requisites');
      await client.query('BEGIN');
      const res = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${query}`, fresh);
      await client.query('ROLLBACK');
      const rows = res.rows.map((r) => r['QUERY PLAN']);
      const buffers = rows.find((l) => l.trim().startsWith('Buffers:'))?.trim() ?? '';
      const time = rows.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '';
      times.push(`after VACUUM requisites ${time} (${buffers})`);
    }
    console.log(`-- ${query.slice(0, 160).replace(/\s+/g, ' ')}${query.length > 160 ? ' ...' : ''}`);
    console.log(`   runs: ${times.join('; ')}`);
    for (const line of plan) console.log(`   ${line}`);
    console.log('');
  }
} finally {
  await app.close();
  await client.end().catch(() => undefined);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
