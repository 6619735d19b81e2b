// Rate limits per (IP, endpoint, client-api-key) (docs/api.md "Limits"; docs/decisions.md sections 2, 12).
// The limiter counts real time, so the few waits below are real and bounded (at most ~5.1 s once).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { sleep } from '../helpers/wait.js';

const TOO_MANY = {
  ok: false,
  success: false,
  status: 429,
  message: 'TOO_MANY_REQUESTS',
  error: 'Too many requests, slow down.',
};

/** Asserts the exact 429 envelope and a Retry-After of 1..`maxSeconds` whole seconds. */
function expect429(res: LightMyRequestResponse, maxSeconds: number): number {
  assert.equal(res.statusCode, 429, res.body);
  assert.deepEqual(res.json(), TOO_MANY, res.body);
  const header = String(res.headers['retry-after']);
  assert.match(header, /^\d+$/, `Retry-After: ${header}`);
  const seconds = Number(header);
  assert.ok(seconds >= 1 && seconds <= maxSeconds, `Retry-After ${seconds} not in 1..${maxSeconds}`);
  return seconds;
}

const statuses = (list: LightMyRequestResponse[]) => list.map((r) => r.statusCode).sort((a, b) => a - b);

describe('rate limits', () => {
  let t: TestApp;

  const payout = (m: TestMerchant, fields: Record<string, unknown> = {}) =>
    merchantRequest(t.app, m, '/merchant/createOrder', {
      body: {
        merchant_id: m.id,
        amount: 100,
        type: 'sim',
        direction: 'PAYOUT',
        payout_details: { holderAccount: '79001234567', holderName: 'Ivan Petrov', methodName: 'Sberbank' },
        ...fields,
      },
    });
  const funded = async (settings: Record<string, unknown> = {}) => {
    const m = await createMerchant(t.app, settings);
    await admin(t.app, 'POST', `/admin/merchants/${m.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: 100_000,
      reason: 'rate limit test funds',
    });
    return m;
  };
  const get = (m: TestMerchant, url: string) => merchantRequest(t.app, m, url);

  before(async () => {
    t = await startTestApp({ config: { rateLimits: true } });
    assert.equal(t.config.rateLimits, true);
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'phone' });
  });
  after(() => t.close());

  describe('PAYOUT createOrder: 1 per 5 s', () => {
    it('the second within 5 s is 429 with the envelope; another key is not affected; 200 after 5 s', async () => {
      const m = await funded();
      const other = await funded();
      const startedAt = Date.now();
      const first = await payout(m);
      // The window opened when the limiter counted the first request: after startedAt, before its
      // answer. Within startedAt + 4 s it is surely open; after answered + 5 s surely closed.
      const answeredAt = Date.now();
      assert.equal(first.statusCode, 200, first.body);
      const second = await payout(m, { order_id: 'second-try' });
      expect429(second, 5);
      const read = await get(m, '/merchant/order/second-try');
      assert.equal(read.statusCode, 404, `a limited request creates nothing: ${read.body}`);
      const balance = await get(m, `/merchant/balance/${m.id}`);
      assert.equal(balance.json().reserved, 100, `only the first payout is held: ${balance.body}`);

      const theirs = await payout(other);
      assert.equal(theirs.statusCode, 200, `another merchant's counter is its own: ${theirs.body}`);
      expect429(await payout(other), 5);

      // A PAYIN of the limited merchant is still served: the PAYOUT counter is not the PAYIN one.
      const payin = await createOrder(t.app, m);
      assert.equal(payin.statusCode, 200, payin.body);

      const beforeWindow = 4000 - (Date.now() - startedAt);
      if (beforeWindow > 0) {
        await sleep(beforeWindow);
        expect429(await payout(m), 2);
      }
      await sleep(Math.max(0, answeredAt + 5100 - Date.now()));
      const later = await payout(m);
      assert.equal(later.statusCode, 200, `allowed again after 5 s: ${later.body}`);
      expect429(await payout(m), 5);
    });

    it('a failed PAYOUT attempt also counts (the limit guards against duplicate submissions)', async () => {
      const m = await funded();
      const bad = await payout(m, { payout_details: { holderAccount: '123' } });
      assert.equal(bad.statusCode, 400, bad.body);
      expect429(await payout(m), 5);
    });

    it('PAYIN requests do not consume the PAYOUT counter', async () => {
      const m = await funded();
      for (let i = 0; i < 3; i++) {
        const payin = await createOrder(t.app, m);
        assert.equal(payin.statusCode, 200, payin.body);
      }
      const res = await payout(m);
      assert.equal(res.statusCode, 200, res.body);
    });
  });

  describe('read endpoints: 6 per second each', () => {
    it('7 GETs of /merchant/banks: the 7th is 429; bank-standards and another key keep their counters', async () => {
      const m = await createMerchant(t.app);
      const other = await createMerchant(t.app);
      const burst: LightMyRequestResponse[] = [];
      for (let i = 0; i < 7; i++) burst.push(await get(m, '/merchant/banks'));
      assert.deepEqual(
        burst.slice(0, 6).map((r) => r.statusCode),
        [200, 200, 200, 200, 200, 200],
        burst.map((r) => r.body.slice(0, 80)).join('\n'),
      );
      expect429(burst[6] as LightMyRequestResponse, 1);
      const standards = await get(m, '/merchant/bank-standards');
      assert.equal(standards.statusCode, 200, `own counter per endpoint: ${standards.body}`);
      const theirs = await get(other, '/merchant/banks');
      assert.equal(theirs.statusCode, 200, `own counter per key: ${theirs.body}`);
      await sleep(1100);
      const again = await get(m, '/merchant/banks');
      assert.equal(again.statusCode, 200, `a new second: ${again.body}`);
    });

    it('balance, order, orders and bank-standards each allow 6 per second (7 in parallel: one 429)', async () => {
      const m = await funded();
      const order = await payout(m, { order_id: 'read-me' });
      assert.equal(order.statusCode, 200, order.body);
      const urls = [
        `/merchant/balance/${m.id}`,
        '/merchant/order/read-me',
        `/merchant/orders?merchant_id=${m.id}`,
        '/merchant/bank-standards',
      ];
      for (const url of urls) {
        const burst = await Promise.all(Array.from({ length: 7 }, () => get(m, url)));
        assert.deepEqual(statuses(burst), [200, 200, 200, 200, 200, 200, 429], `${url}: ${burst[0]?.body}`);
        expect429(burst.find((r) => r.statusCode === 429) as LightMyRequestResponse, 1);
      }
    });
  });

  describe("PAYIN createOrder: the merchant's payin_rate_limit per second", () => {
    it('payin_rate_limit 2 (set by PATCH): the 3rd within a second is 429; PAYOUT still allowed', async () => {
      const m = await funded();
      await admin(t.app, 'PATCH', `/admin/merchants/${m.id}`, { payin_rate_limit: 2 });
      await sleep(1100); // the merchant row may be cached for up to 1 s
      const burst = await Promise.all(Array.from({ length: 3 }, () => createOrder(t.app, m)));
      assert.deepEqual(statuses(burst), [200, 200, 429], burst.map((r) => r.body).join('\n'));
      expect429(burst.find((r) => r.statusCode === 429) as LightMyRequestResponse, 1);
      const res = await payout(m);
      assert.equal(res.statusCode, 200, `PAYIN requests did not consume the PAYOUT counter: ${res.body}`);
      await sleep(1100);
      const next = await createOrder(t.app, m);
      assert.equal(next.statusCode, 200, `a new second: ${next.body}`);
    });

    it('default 10 per second: 11 in parallel -> exactly one 429', async () => {
      const m = await createMerchant(t.app);
      const burst = await Promise.all(Array.from({ length: 11 }, () => createOrder(t.app, m)));
      const codes = statuses(burst);
      assert.deepEqual(codes, [...Array(10).fill(200), 429], burst.map((r) => r.body).join('\n'));
    });
  });
});
