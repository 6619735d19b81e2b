// The SDK's self-service calls (docs/decisions.md sections 29, 26 and 30) against the real service over loopback:
// a test key's order driven by `simulate`, the event it causes caught by the CLI's listener and
// typed by `parseEvent`, the subscription calls and the reports.
// NETWORK RULE: every server here listens on 127.0.0.1; nothing leaves the machine.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../packages/sdk/src/cli.js';
import {
  type Arrival,
  createMerchantClient,
  EventVerificationError,
  MerchantApiError,
  type MerchantClient,
  parseEvent,
  EVENT_TYPES as SDK_EVENT_TYPES,
  SANDBOX_OUTCOMES as SDK_OUTCOMES,
  sign,
  startListener,
} from '../../packages/sdk/src/index.js';
import { SANDBOX_OUTCOMES } from '../../src/rails/sandbox/index.js';
import { EVENT_TYPES } from '../../src/rails/webhooks/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { admin, createMerchant, type TestMerchant } from '../helpers/merchant-client.js';

describe('merchant SDK: sandbox, event subscriptions, listen, reports', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let testKey: string;
  let live: MerchantClient;
  let sandbox: MerchantClient;
  const arrivals: Arrival[] = [];
  let listener: Awaited<ReturnType<typeof startListener>>;

  before(async () => {
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    merchant = await createMerchant(t.app);
    testKey = (
      await admin<{ api_key: string }>(t.app, 'POST', `/admin/merchants/${merchant.id}/api-keys`, {
        mode: 'test',
      })
    ).api_key;
    live = createMerchantClient({ baseUrl, merchantId: merchant.id, apiKey: merchant.apiKey });
    sandbox = createMerchantClient({ baseUrl, merchantId: merchant.id, apiKey: testKey });
    listener = await startListener({ keys: [merchant.apiKey, testKey], onArrival: (a) => arrivals.push(a) });
  });
  after(async () => {
    await listener.close();
    await t.close();
  });

  it('simulate expires a test order; the listener prints the verified event and parseEvent types it', async () => {
    const sub = await sandbox.subscriptions.create(`${listener.url}/events`, ['order.expired']);
    assert.deepEqual(sub.events, ['order.expired']);
    assert.ok((await sandbox.subscriptions.list()).some((s) => s.id === sub.id));
    const order = await sandbox.createOrder({ amount: 1500, type: 'sim' });
    const expired = await sandbox.simulate(order.id, 'expired');
    assert.equal(expired.status, 'error');
    for (let i = 0; i < 50 && !arrivals.some((a) => a.type === 'order.expired'); i++)
      await t.services.dispatcher.runOnce();
    const arrival = arrivals.find((a) => a.type === 'order.expired');
    assert.ok(arrival, 'the event reached the listener');
    assert.equal(arrival.verified, true);
    assert.equal(arrival.kind, 'event');
    assert.equal(arrival.livemode, false);
    const raw = JSON.stringify(arrival.body);
    const log = await sandbox.subscriptions.deliveries({ limit: 5 });
    const delivery = log.find((d) => d.event_type === 'order.expired');
    assert.ok(delivery, 'the test key reads its delivery log');
    assert.equal(delivery.attempt_log[0]?.status_code, 200);
    const event = parseEvent(delivery.body, sign(testKey, delivery.body), [merchant.apiKey, testKey]);
    assert.equal(event.type, 'order.expired');
    assert.equal(event.data.order.id, order.id);
    assert.throws(() => parseEvent(raw, 'f'.repeat(64), merchant.apiKey), EventVerificationError);
    const err = await live.simulate(order.id, 'paid').then(
      () => assert.fail('a live key may not simulate'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof MerchantApiError);
    assert.equal(err.code, 'TEST_KEY_REQUIRED');
    const sent = await sandbox.subscriptions.sendTest(sub.id);
    assert.equal(sent.type, 'order.expired');
    assert.deepEqual(await sandbox.subscriptions.remove(sub.id), { id: sub.id, deleted: true });
  });

  it('the SDK lists the same event types and sandbox outcomes as the service (its copies stay in step)', () => {
    assert.deepEqual([...SDK_EVENT_TYPES], [...EVENT_TYPES]);
    assert.deepEqual([...SDK_OUTCOMES], [...SANDBOX_OUTCOMES]);
  });

  it('reports answer typed figures; the CLI prints them, and listen stops on its signal', async () => {
    const reports = await sandbox.reports();
    assert.equal(reports.merchant_id, merchant.id);
    assert.equal(reports.daily.days.length, 30);
    assert.ok(reports.today.total.created >= 1, 'the sandbox key reports its test orders');
    assert.equal((await live.reports()).today.total.created, 0, 'the live key does not count them');
    const out: string[] = [];
    const env = {
      PAYMENT_ORDERS_URL: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
      MERCHANT_ID: merchant.id,
      API_KEY: testKey,
    };
    const code = await runCli(['reports'], env, { stdout: (s) => out.push(s), stderr: () => undefined });
    assert.equal(code, 0);
    assert.equal(JSON.parse(out.join('')).merchant_id, merchant.id);
    const stop = new AbortController();
    const lines: string[] = [];
    const running = runCli(['listen', '--port', '0'], env, {
      stdout: (s) => lines.push(s),
      stderr: (s) => lines.push(s),
      signal: stop.signal,
    });
    for (let i = 0; i < 100 && !lines.some((l) => l.includes('listening on')); i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.match(lines.join(''), /listening on http:\/\/127\.0\.0\.1:\d+/);
    stop.abort();
    assert.equal(await running, 0);
  });
});
