/**
 * Webhook dispatch rate: N due deliveries to a local receiver answering 200,
 * sent by one dispatcher as configured in production (batch 100, 4 loops). Needs PostgreSQL:
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); a fresh database is made and dropped.
 * Prints one markdown table row. Usage: npm run bench:webhooks [-- <count>]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { systemClock } from '../src/lib/clock.js';
import { parseAllowlist } from '../src/platform/outbound/address-policy.js';
import { createOutboundGuard } from '../src/platform/outbound/outbound-guard.js';
import { createWebhookDispatcher } from '../src/rails/webhooks/webhook-dispatcher.js';

const count = Number(process.argv[2] ?? 5000);
const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function withFreshDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const name = `bench_wh_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** Runs the measurement; returns deliveries per second. */
export async function benchWebhooks(
  n: number,
): Promise<{ perSecond: number; seconds: number; received: number }> {
  return withFreshDatabase(async (url) => {
    let received = 0;
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;
    const database = await openDatabase({ databaseUrl: url, poolSize: 10 });
    const db = database.db;
    await db.execute(
      sql`INSERT INTO merchants (id, currencies, payment_types) VALUES ('bench', '["RUB"]', '["sim"]')`,
    );
    await db.execute(sql`INSERT INTO orders (id, merchant_id, external_id, direction, type, currency, amount, payable_amount,
      fee_percent, fee, amount_after_fee, status, pd_address, pd_bank, pd_holder_name)
      VALUES ('luxbench', 'bench', 'bench', 'PAYIN', 'sim', 'RUB', 100, 100, 0, 0, 100, 'success', 'x', 'x', 'x')`);
    await db.execute(sql`INSERT INTO webhook_deliveries (order_id, merchant_id, url, body, next_attempt_at)
      SELECT 'luxbench', 'bench', ${`http://127.0.0.1:${port}/hook`}, '{"id":"luxbench","n":' || g || '}', now()
      FROM generate_series(1, ${n}) g`);
    const guard = createOutboundGuard({ allowlist: parseAllowlist('127.0.0.1') });
    const dispatcher = createWebhookDispatcher({
      database,
      clock: systemClock,
      guard,
      apiKeyFor: async () => 'k'.repeat(64),
      batchSize: 100,
      loops: 4,
      pollMs: 20,
    });
    const t0 = performance.now();
    dispatcher.start();
    while (received < n && performance.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 20));
    const seconds = (performance.now() - t0) / 1000;
    await dispatcher.stop();
    await guard.dispatcher.close();
    await database.close();
    await new Promise<void>((r) => receiver.close(() => r()));
    return { perSecond: Math.round(received / seconds), seconds, received };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchWebhooks(count);
  console.log('| measure | value | target |\n|---|---|---|');
  console.log(
    `| webhook deliveries/s (${r.received} in ${r.seconds.toFixed(2)} s, PostgreSQL) | ${r.perSecond} | >= 1000 |`,
  );
}
