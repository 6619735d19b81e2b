import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startJobs } from '../../src/jobs.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

const TTL_SECONDS = 10;

/** Base amounts for disambiguation, >= 9,000,000 where uniqueAmount() never goes. */
function baseAmount(): number {
  return 9_000_000 + randomInt(0, 50_000) * 1000;
}

describe('order expiry with a manual clock (docs/decisions.md section 5)', () => {
  const clock = manualClock();
  let t: TestApp;
  let merchant: TestMerchant;

  const readOrder = async (id: string) => {
    const res = await merchantRequest(t.app, merchant, `/merchant/order/${id}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const createOk = async (fields: Record<string, unknown> = {}) => {
    const res = await createOrder(t.app, merchant, fields);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  /** Sweeps until nothing more is due (other files' orders may share the table). */
  const sweep = async () => {
    for (let i = 0; i < 20 && (await t.services.orders.expireDue()) > 0; i++);
  };

  before(async () => {
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, { order_ttl_seconds: TTL_SECONDS });
    await addRequisite(t.app, { kind: 'phone' });
  });
  after(() => t.close());
  // The sweep is global: keep the manual clock near real time so that it never expires other files'
  // orders much before their deadline.
  beforeEach(() => clock.set(Date.now()));

  describe('happy', () => {
    it('remainingSeconds counts down; past the TTL the sweep moves the order to error', async () => {
      const created = await createOk({ amount: uniqueAmount() });
      assert.equal(created.status, 'pending');
      assert.equal(created.remainingSeconds, TTL_SECONDS, JSON.stringify(created));

      clock.advance(4_000);
      let read = await readOrder(created.id);
      assert.equal(read.status, 'pending', JSON.stringify(read));
      assert.equal(read.remainingSeconds, TTL_SECONDS - 4, JSON.stringify(read));

      clock.advance(2_500);
      assert.equal((await readOrder(created.id)).remainingSeconds, 4); // 3.5 s rounds up

      // Not yet due: a sweep leaves it pending.
      await sweep();
      assert.equal((await readOrder(created.id)).status, 'pending');

      clock.advance(3_501); // 10.001 s after creation
      read = await readOrder(created.id);
      assert.equal(read.remainingSeconds, 0, JSON.stringify(read));

      await sweep();
      read = await readOrder(created.id);
      assert.equal(read.status, 'error', JSON.stringify(read));
      assert.equal('remainingSeconds' in read, false, JSON.stringify(read));
      assert.equal('remainingSeconds' in read.data, false, JSON.stringify(read.data));

      const view = await admin<Record<string, unknown>>(t.app, 'GET', `/admin/orders/${created.id}`);
      assert.equal(view.status_reason, 'expired', JSON.stringify(view));
      const events = view.events as Array<{ from: string; to: string; actor: string; reason: string }>;
      assert.deepEqual(
        events.map((e) => [e.from, e.to, e.actor, e.reason]),
        [
          [null, 'pending', `merchant:${merchant.id}`, null],
          ['pending', 'error', 'system', 'expired'],
        ],
        JSON.stringify(events),
      );
    });

    it('an expired order cannot be cancelled; a late payment is confirmed only with a reason', async () => {
      const created = await createOk({ amount: uniqueAmount() });
      clock.advance(TTL_SECONDS * 1000 + 1);
      await sweep();
      assert.equal((await readOrder(created.id)).status, 'error');
      const cancel = await adminRaw(t.app, 'POST', `/admin/orders/${created.id}/cancel`, { reason: 'x' });
      assert.equal(cancel.statusCode, 409, cancel.body);
      assert.equal(cancel.json().message, 'ORDER_STATE_CONFLICT', cancel.body);
      const late = await adminRaw(t.app, 'POST', `/admin/orders/${created.id}/confirm`, {});
      assert.equal(late.statusCode, 400, late.body);
      assert.equal(late.json().message, 'VALIDATION_ERROR', late.body);
      const confirmed = await admin(t.app, 'POST', `/admin/orders/${created.id}/confirm`, {
        reason: 'late payment',
      });
      assert.equal(confirmed.status, 'success', JSON.stringify(confirmed));
    });

    it("an expired order's amount is free for disambiguation", async () => {
      const x = baseAmount();
      const a = await createOk({ amount: x, amountUp: 5 });
      const b = await createOk({ amount: x, amountUp: 5 });
      assert.equal(a.payment_details.amount, String(x));
      assert.equal(b.payment_details.amount, String(x + 1), 'x is held by the pending order');

      clock.advance(TTL_SECONDS * 1000 + 1);
      await sweep();
      assert.equal((await readOrder(a.id)).status, 'error');
      assert.equal((await readOrder(b.id)).status, 'error');

      const c = await createOk({ amount: x, amountUp: 5 });
      assert.equal(c.payment_details.amount, String(x), JSON.stringify(c));
      const d = await createOk({ amount: x, amountUp: 5 });
      assert.equal(d.payment_details.amount, String(x + 1), JSON.stringify(d));
    });

    it('an order past its deadline frees its amount even before the sweep runs', async () => {
      const x = baseAmount();
      const a = await createOk({ amount: x, amountUp: 5 });
      assert.equal(a.payment_details.amount, String(x));
      clock.advance(TTL_SECONDS * 1000 + 1);
      const b = await createOk({ amount: x, amountUp: 5 });
      assert.equal(b.payment_details.amount, String(x), JSON.stringify(b));
    });
  });
});

describe('order expiry by the background job, real clock', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let jobs: { stop(): Promise<void> } | undefined;

  before(async () => {
    t = await startTestApp({ config: { expiryIntervalMs: 200 } });
    merchant = await createMerchant(t.app, { order_ttl_seconds: TTL_SECONDS });
    await addRequisite(t.app, { kind: 'phone' });
  });
  after(async () => {
    await jobs?.stop();
    await t.close();
  });

  it(`a pending order becomes error within ${TTL_SECONDS} + 5 s`, { timeout: 30_000 }, async () => {
    jobs = startJobs(t.services, t.config, t.app.log);
    const res = await createOrder(t.app, merchant, { amount: uniqueAmount() });
    assert.equal(res.statusCode, 200, res.body);
    const created = res.json();
    const start = Date.now();
    const deadline = start + (TTL_SECONDS + 5) * 1000;
    let status = 'pending';
    let last = '';
    while (Date.now() < deadline) {
      const read = await merchantRequest(t.app, merchant, `/merchant/order/${created.id}`);
      assert.equal(read.statusCode, 200, read.body);
      last = read.body;
      status = read.json().status;
      if (status !== 'pending') break;
      await sleep(250);
    }
    const elapsed = Date.now() - start;
    assert.equal(status, 'error', `after ${elapsed} ms: ${last}`);
    // On a shared database another process's sweep (with its own clock) may expire it earlier.
    if (!onPostgres())
      assert.ok(elapsed >= TTL_SECONDS * 1000 - 1000, `expired too early, after ${elapsed} ms`);
    await jobs.stop();
    jobs = undefined;
  });
});
