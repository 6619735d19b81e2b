import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../../src/db/database.js';
import { webhookAttempts, webhookDeliveries } from '../../src/db/tables/webhooks.js';
import type { Clock } from '../../src/lib/clock.js';
import { parseAllowlist } from '../../src/platform/outbound/address-policy.js';
import { createOutboundGuard, type OutboundGuard } from '../../src/platform/outbound/outbound-guard.js';
import {
  createWebhookDispatcher,
  type WebhookDispatcher,
} from '../../src/rails/webhooks/webhook-dispatcher.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase, needsPostgres, testDatabaseUrl } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  sign,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

const TOTAL = 1000;

describe('two dispatchers over one PostgreSQL database (docs/decisions.md 11)', {
  skip: needsPostgres('two connection pools on one database stand for two processes'),
}, () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let orderId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dropDatabase: () => Promise<void>;
  const workers: Array<{ database: Database; guard: OutboundGuard; dispatcher: WebhookDispatcher }> = [];

  before(async () => {
    dropDatabase = await isolateDatabase('wh_conc');
    t = await startTestApp();
    merchant = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
    const res = await createOrder(t.app, merchant);
    assert.equal(res.statusCode, 200, res.body);
    orderId = (res.json() as { id: string }).id;
    await admin(t.app, 'POST', `/admin/orders/${orderId}/confirm`, {});
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.dispatcher.stop()));
    for (const w of workers) {
      await w.guard.dispatcher.close();
      await w.database.close();
    }
    await receiver?.close();
    await t?.close();
    await dropDatabase?.();
  });

  it(`delivers ${TOTAL} due deliveries exactly once each`, { timeout: 90_000 }, async (ctx) => {
    const dueAt = new Date(Date.now() - 1000);
    const rows = Array.from({ length: TOTAL }, (_, seq) => ({
      orderId,
      merchantId: merchant.id,
      url: `${receiver.url}/c`,
      body: JSON.stringify({ seq, order: orderId }),
      nextAttemptAt: dueAt,
    }));
    for (let i = 0; i < TOTAL; i += 250) {
      await t.database.db.insert(webhookDeliveries).values(rows.slice(i, i + 250));
    }
    const mine = and(eq(webhookDeliveries.orderId, orderId), eq(webhookDeliveries.merchantId, merchant.id));
    const countWhere = async (status?: 'delivered') => {
      const [row] = await t.database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(webhookDeliveries)
        .where(status ? and(mine, eq(webhookDeliveries.status, status)) : mine);
      return row?.n ?? 0;
    };
    assert.equal(await countWhere(), TOTAL, 'all rows inserted');

    const sentBy = [0, 0];
    for (const index of [0, 1]) {
      // Like two processes: each its own pool, guard (agent) and real clock.
      const database = await openDatabase({ databaseUrl: testDatabaseUrl(), poolSize: 10, migrate: false });
      const guard = createOutboundGuard({
        allowlist: parseAllowlist('127.0.0.1'),
        resolver: async (host) => {
          throw new Error(`no DNS in tests: ${host}`);
        },
      });
      const clock: Clock = { now: () => Date.now() };
      const dispatcher = createWebhookDispatcher({
        database,
        clock,
        guard,
        apiKeyFor: (id) => t.services.merchants.currentApiKey(id),
        batchSize: 50,
        loops: 4,
        pollMs: 50,
        onAttempt: () => {
          sentBy[index] = (sentBy[index] ?? 0) + 1;
        },
      });
      workers.push({ database, guard, dispatcher });
    }
    const started = Date.now();
    for (const w of workers) w.dispatcher.start();
    let delivered = 0;
    while (Date.now() - started < 60_000) {
      delivered = await countWhere('delivered');
      if (delivered >= TOTAL) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const elapsed = Date.now() - started;
    // Let any (wrong) duplicate sends in flight land before counting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all(workers.map((w) => w.dispatcher.stop()));
    ctx.diagnostic(`${TOTAL} deliveries in ${elapsed} ms; per dispatcher ${sentBy.join(' + ')}`);
    assert.equal(delivered, TOTAL, `only ${delivered} delivered within 60 s`);

    const seqs = receiver.received.map((r) => (JSON.parse(r.body.toString()) as { seq: number }).seq);
    const counts = new Map<number, number>();
    for (const s of seqs) counts.set(s, (counts.get(s) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1).map(([s]) => s);
    const missing = rows.map((_, s) => s).filter((s) => !counts.has(s));
    assert.deepEqual(twice, [], `sent more than once: ${twice.slice(0, 20).join(',')}`);
    assert.deepEqual(missing, [], `never sent: ${missing.slice(0, 20).join(',')}`);
    assert.equal(receiver.received.length, TOTAL, 'exactly one request per delivery');
    const badSignature = receiver.received.filter(
      (r) => r.headers['x-api-key'] !== sign(merchant.apiKey, r.body),
    );
    assert.equal(badSignature.length, 0, 'every request is signed with the merchant key');

    assert.equal((sentBy[0] ?? 0) + (sentBy[1] ?? 0), TOTAL, `attempts recorded: ${sentBy.join(' + ')}`);
    assert.ok((sentBy[0] ?? 0) > 0 && (sentBy[1] ?? 0) > 0, `both dispatchers worked: ${sentBy.join(' + ')}`);

    const states = await t.database.db
      .select({
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        n: sql<number>`count(*)::int`,
      })
      .from(webhookDeliveries)
      .where(mine)
      .groupBy(webhookDeliveries.status, webhookDeliveries.attempts);
    assert.deepEqual(states, [{ status: 'delivered', attempts: 1, n: TOTAL }], JSON.stringify(states));

    const ids = t.database.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(mine);
    const attemptRows = await t.database.db
      .select({
        attemptNo: webhookAttempts.attemptNo,
        status: webhookAttempts.statusCode,
        n: sql<number>`count(*)::int`,
      })
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, ids))
      .groupBy(webhookAttempts.attemptNo, webhookAttempts.statusCode);
    assert.deepEqual(attemptRows, [{ attemptNo: 1, status: 200, n: TOTAL }], JSON.stringify(attemptRows));
  });
});
