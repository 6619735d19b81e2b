import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  sign,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

interface Attempt {
  attempt: number;
  started_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response: string | null;
}
interface Delivery {
  id: string;
  url: string;
  body: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  resend_of: string | null;
  delivered_at: string | null;
  attempt_log: Attempt[];
}

const BIG = 'x'.repeat(5000);

describe('webhook failures, retries, resend and late payments (docs/api.md Events; docs/decisions.md 11)', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dropDatabase: () => Promise<void>;
  const seen = new Map<string, number>();

  before(async () => {
    dropDatabase = await isolateDatabase('wh_fail');
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app);
    await addRequisite(t.app, { kind: 'phone' });
    // `/k/<kind>/<n>`: the first request of a path answers <kind>, later ones 200.
    receiver = await startReceiver((req) => {
      const count = seen.get(req.url) ?? 0;
      seen.set(req.url, count + 1);
      const kind = /^\/k\/(\w+)\//.exec(req.url)?.[1];
      if (!kind || count > 0) return { status: 200, body: 'ok' };
      if (kind === 'timeout') return { status: 200, body: 'too late', delayMs: 11_000 };
      if (kind === 'euro') return { status: 500, body: '€'.repeat(2000) };
      const status = Number(kind);
      const headers: Record<string, string> =
        status >= 300 && status < 400 ? { location: `${receiver.url}/elsewhere` } : {};
      return { status, body: BIG, headers };
    });
  });
  after(async () => {
    await receiver?.close();
    await t?.close();
    await dropDatabase?.();
  });

  async function confirmedOrder(fields: Record<string, unknown>, m = merchant): Promise<string> {
    const res = await createOrder(t.app, m, { amount: uniqueAmount(), ...fields });
    assert.equal(res.statusCode, 200, res.body);
    const id = (res.json() as { id: string }).id;
    await admin(t.app, 'POST', `/admin/orders/${id}/confirm`, {});
    return id;
  }
  const deliveriesOf = (orderId: string) =>
    admin<Delivery[]>(t.app, 'GET', `/admin/webhooks?order_id=${orderId}`);
  async function onlyDelivery(orderId: string): Promise<Delivery> {
    const list = await deliveriesOf(orderId);
    assert.equal(list.length, 1, JSON.stringify(list));
    return list[0] as Delivery;
  }

  /** The delivery failed once and waits exactly 15 s from the start of that try. */
  function assertFailedOnce(d: Delivery): Attempt {
    const text = JSON.stringify(d);
    assert.equal(d.status, 'pending', text);
    assert.equal(d.attempts, 1, text);
    assert.equal(d.attempt_log.length, 1, text);
    const a = d.attempt_log[0] as Attempt;
    assert.equal(a.attempt, 1, text);
    assert.ok(Number.isInteger(a.latency_ms) && a.latency_ms >= 0, text);
    assert.ok(a.error, text);
    assert.equal(d.last_error, a.error, text);
    assert.equal(d.last_status_code, a.status_code, text);
    assert.equal(Date.parse(d.next_attempt_at ?? '') - Date.parse(a.started_at), 15_000, text);
    assert.equal(d.delivered_at, null, text);
    return a;
  }

  /** Nothing is sent before the 15 s are up; at 15 s the retry gets 200 and the delivery is done. */
  async function assertRetryDelivers(orderId: string): Promise<void> {
    clock.advance(15_000 - 1);
    await t.services.dispatcher.runOnce();
    assert.equal((await onlyDelivery(orderId)).attempts, 1, 'not retried before 15 s');
    clock.advance(1);
    await t.services.dispatcher.runOnce();
    const d = await onlyDelivery(orderId);
    const text = JSON.stringify(d);
    assert.equal(d.status, 'delivered', text);
    assert.equal(d.attempts, 2, text);
    assert.deepEqual(
      d.attempt_log.map((a) => a.status_code),
      [d.attempt_log[0]?.status_code ?? null, 200],
      text,
    );
    assert.equal(d.attempt_log[1]?.error, null, text);
    assert.equal(d.next_attempt_at, null, text);
  }

  for (const status of [201, 204, 301, 302, 400, 404, 500, 503]) {
    it(`HTTP ${status} is a failed try, retried 15 s later; 200 then delivers (2 attempts)`, async () => {
      const path = `/k/${status}/${randomUUID()}`;
      const orderId = await confirmedOrder({ success_callback_url: `${receiver.url}${path}` });
      await t.services.dispatcher.runOnce();
      const d = await onlyDelivery(orderId);
      const a = assertFailedOnce(d);
      const text = JSON.stringify(d);
      assert.equal(a.status_code, status, text);
      assert.equal(a.error, `HTTP ${status}`, text);
      if (status === 204) assert.equal(a.response, '', text);
      else assert.equal(a.response, BIG.slice(0, 1024), `snippet is the first 1024 bytes: ${text}`);
      assert.equal(seen.get(path), 1, 'one request so far');
      assert.equal(seen.get('/elsewhere'), undefined, 'redirects are not followed');
      await assertRetryDelivers(orderId);
      assert.equal(seen.get(path), 2);
    });
  }

  it('a response snippet never exceeds 1024 bytes, even cut inside a multi-byte character', async () => {
    const orderId = await confirmedOrder({ success_callback_url: `${receiver.url}/k/euro/${randomUUID()}` });
    await t.services.dispatcher.runOnce();
    const a = assertFailedOnce(await onlyDelivery(orderId));
    assert.equal(a.status_code, 500);
    const bytes = Buffer.byteLength(a.response ?? '', 'utf8');
    assert.ok(bytes <= 1024, `snippet is ${bytes} bytes: ${JSON.stringify(a.response?.slice(-3))}`);
    assert.ok(bytes >= 1021, `snippet keeps what fits: ${bytes} bytes`);
  });

  it('a refused connection (closed port) is a failed try, retried 15 s later', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const orderId = await confirmedOrder({ success_callback_url: `http://127.0.0.1:${port}/hook` });
    await t.services.dispatcher.runOnce();
    const d = await onlyDelivery(orderId);
    const a = assertFailedOnce(d);
    assert.equal(a.status_code, null, JSON.stringify(d));
    assert.match(a.error ?? '', /ECONNREFUSED/, JSON.stringify(d));
    assert.equal(a.response, null);
  });

  it('a TLS error (https:// to a plain HTTP server) is a failed try, retried 15 s later', async () => {
    const path = `/tls/${randomUUID()}`;
    const orderId = await confirmedOrder({
      success_callback_url: `https://127.0.0.1:${receiver.port}${path}`,
    });
    await t.services.dispatcher.runOnce();
    const d = await onlyDelivery(orderId);
    const a = assertFailedOnce(d);
    assert.equal(a.status_code, null, JSON.stringify(d));
    assert.match(a.error ?? '', /SSL|TLS|EPROTO|wrong version/i, JSON.stringify(d));
    assert.equal(seen.get(path), undefined, 'no HTTP request got through');
  });

  it('no answer within 10 s is a failed try (timeout), retried 15 s later', async () => {
    const orderId = await confirmedOrder({
      success_callback_url: `${receiver.url}/k/timeout/${randomUUID()}`,
    });
    const started = performance.now();
    await t.services.dispatcher.runOnce();
    const waited = performance.now() - started;
    const d = await onlyDelivery(orderId);
    const a = assertFailedOnce(d);
    const text = JSON.stringify(d);
    assert.ok(waited >= 9_900 && waited < 11_000, `gave up after ${Math.round(waited)} ms`);
    assert.equal(a.status_code, null, text);
    assert.match(a.error ?? '', /timeout/i, text);
    assert.ok(a.latency_ms >= 9_900 && a.latency_ms < 11_000, text);
    await assertRetryDelivers(orderId);
  });

  it('no webhook for a cancelled order, nor for a success without success_callback_url', async () => {
    const before = receiver.received.length;
    const res = await createOrder(t.app, merchant, {
      amount: uniqueAmount(),
      success_callback_url: `${receiver.url}/cancelled`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const cancelled = (res.json() as { id: string }).id;
    await admin(t.app, 'POST', `/admin/orders/${cancelled}/cancel`, { reason: 'client gave up' });
    const silent = await confirmedOrder({});
    await t.services.dispatcher.runOnce();
    assert.deepEqual(await deliveriesOf(cancelled), []);
    assert.deepEqual(await deliveriesOf(silent), []);
    const about = receiver.received.slice(before).filter((r) => {
      const body = r.body.toString();
      return body.includes(cancelled) || body.includes(silent);
    });
    assert.deepEqual(about, [], 'nothing was sent about either order');
  });

  it('a late payment (cancelled, then confirmed with a reason) sends the webhook', async () => {
    const path = `/late/${randomUUID()}`;
    const res = await createOrder(t.app, merchant, {
      amount: uniqueAmount(),
      success_callback_url: `${receiver.url}${path}`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const id = (res.json() as { id: string }).id;
    await admin(t.app, 'POST', `/admin/orders/${id}/cancel`, { reason: 'expired' });
    await t.services.dispatcher.runOnce();
    assert.deepEqual(await deliveriesOf(id), [], 'nothing while in error');
    const noReason = await adminRaw(t.app, 'POST', `/admin/orders/${id}/confirm`, {});
    assert.equal(noReason.statusCode, 400, noReason.body);
    await admin(t.app, 'POST', `/admin/orders/${id}/confirm`, { reason: 'payment found in bank statement' });
    await t.services.dispatcher.runOnce();
    const d = await onlyDelivery(id);
    assert.equal(d.status, 'delivered', JSON.stringify(d));
    const got = receiver.received.filter((r) => r.url === path);
    assert.equal(got.length, 1);
    const body = JSON.parse(got[0]?.body.toString() ?? '{}');
    assert.equal(body.id, id, JSON.stringify(body));
    assert.equal(body.status, 'success', JSON.stringify(body));
    assert.equal(got[0]?.headers['x-api-key'], sign(merchant.apiKey, got[0]?.body ?? ''));
  });

  it('operator resend: a new delivery of the same body, signed with the CURRENT key', async () => {
    const own = await createMerchant(t.app);
    const path = `/resend/${randomUUID()}`;
    const orderId = await confirmedOrder({ success_callback_url: `${receiver.url}${path}` }, own);
    await t.services.dispatcher.runOnce();
    const original = await onlyDelivery(orderId);
    assert.equal(original.status, 'delivered', JSON.stringify(original));
    const first = receiver.received.filter((r) => r.url === path);
    assert.equal(first.length, 1);
    assert.equal(first[0]?.headers['x-api-key'], sign(own.apiKey, first[0]?.body ?? ''));

    const rotated = await admin<{ api_key: string }>(t.app, 'POST', `/admin/merchants/${own.id}/api-keys`);
    assert.notEqual(rotated.api_key, own.apiKey);
    const copy = await admin<Delivery>(t.app, 'POST', `/admin/webhooks/${original.id}/resend`);
    const copyText = JSON.stringify(copy);
    assert.notEqual(copy.id, original.id, copyText);
    assert.equal(copy.resend_of, original.id, copyText);
    assert.equal(copy.body, original.body, copyText);
    assert.equal(copy.url, original.url, copyText);
    assert.equal(copy.status, 'pending', copyText);
    assert.equal(copy.attempts, 0, copyText);

    await t.services.dispatcher.runOnce();
    const got = receiver.received.filter((r) => r.url === path);
    assert.equal(got.length, 2, 'the resend arrived');
    const resent = got[1];
    assert.equal(resent?.body.toString(), first[0]?.body.toString(), 'same bytes');
    assert.equal(resent?.headers['x-api-key'], sign(rotated.api_key, resent?.body ?? ''), 'new key');
    assert.notEqual(resent?.headers['x-api-key'], sign(own.apiKey, resent?.body ?? ''), 'not the old key');

    const all = await deliveriesOf(orderId);
    const byId = new Map(all.map((d) => [d.id, d]));
    assert.equal(all.length, 2, JSON.stringify(all));
    assert.equal(byId.get(copy.id)?.status, 'delivered', JSON.stringify(all));
    assert.equal(byId.get(copy.id)?.attempts, 1, JSON.stringify(all));
    assert.equal(byId.get(original.id)?.attempts, 1, 'the original is untouched');

    const missing = await adminRaw(t.app, 'POST', `/admin/webhooks/${randomUUID()}/resend`);
    assert.equal(missing.statusCode, 404, missing.body);
  });
});
