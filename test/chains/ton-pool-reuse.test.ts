import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import { startTonFake, type TonFake } from '../helpers/fakes/toncenter.js';
import {
  admin,
  adminRaw,
  createMerchant,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { tonAddress } from '../helpers/ton-pool.js';

// A TON pool address passes to a new order 24 h after its last order ended. A watcher stopped
// longer than that finds the older order's payment only after the address changed hands: made
// before the new order existed, it is not the new order's (docs/decisions.md section 34). One
// address in a private pool (a database of its own), the service's clock and the fake's blocks on
// one manual clock.
const MASTER = tonAddress();
const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

describe('a TON pool address reused while the watcher was stopped (docs/decisions.md section 34)', () => {
  const clock = manualClock(Date.now() - 3 * 86_400_000);
  let ton: TonFake;
  let t: TestApp;
  let merchant: TestMerchant;
  let dropDatabase: () => Promise<void>;

  const order = async (amount: number) => {
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: { merchant_id: merchant.id, amount, type: 'ton', currency: 'TON' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { address: string } };
  };
  const status = async (id: string) =>
    (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`)).status;

  before(async () => {
    dropDatabase = await isolateDatabase('ton_reuse');
    ton = await startTonFake({ blocks: 20, now: clock.now });
    ton.addMaster(MASTER);
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, { payment_types: ['ton'], settlement: 'fiat' });
    await admin(t.app, 'PUT', '/admin/rates', {
      base: 'TON',
      quote: 'RUB',
      rate: '250.5',
      ttl_seconds: 30 * 86_400,
    });
    await admin(t.app, 'POST', '/admin/crypto/pool-addresses', { network: 'ton', addresses: [tonAddress()] });
    await admin(t.app, 'PUT', '/admin/chains/ton', {
      url: ton.url,
      token_contract: MASTER,
      poll_seconds: 1,
    });
  });
  after(async () => {
    await t?.close();
    await ton?.close();
    await dropDatabase?.();
  });

  it("the older order's payment, found after the address passed to a new order, is unmatched: the new order stays pending", async () => {
    const first = await order(3);
    clock.advance(60_000);
    const paid = ton.payTon(first.payment_details.address, 3_000_000_000n);
    clock.advance(60_000);
    const cancelled = await adminRaw(t.app, 'POST', `/admin/orders/${first.id}/cancel`, {
      reason: 'the payer asked to cancel',
    });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    clock.advance(25 * 3600_000);
    const second = await order(3);
    assert.equal(second.payment_details.address, first.payment_details.address, 'the one address, reused');
    await t.services.chains.runOnce('ton');
    const listed = (
      await admin<{
        transactions_needing_attention: Array<{ tx_hash: string; outcome: string; order_id: string | null }>;
      }>(t.app, 'GET', '/admin/crypto')
    ).transactions_needing_attention.filter((r) => r.tx_hash === hex(paid.hash));
    assert.deepEqual(
      listed.map((r) => [r.outcome, r.order_id]),
      [['unmatched', null]],
    );
    assert.equal(await status(second.id), 'pending', 'never paid by a transfer made before it existed');
  });

  it("a payment made after the new order was created is the new order's", async () => {
    await admin(t.app, 'POST', '/admin/crypto/pool-addresses', { network: 'ton', addresses: [tonAddress()] });
    const o = await order(4);
    clock.advance(60_000);
    ton.payTon(o.payment_details.address, 4_000_000_000n);
    await t.services.chains.runOnce('ton');
    assert.equal(await status(o.id), 'success');
  });
});
