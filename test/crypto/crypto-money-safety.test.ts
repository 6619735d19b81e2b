import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { money } from '../../src/lib/money.js';
import { CHAIN_WATCHER_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import * as client from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

// docs/decisions.md sections 13, 14 and 6: manual credits are capped, one transaction is one key however it is spelled,
// and the credited amount is the one number the order, the webhook and the ledger show.
// The btc key is the 'abandon ... about' key other files use too (the counter is kept).
const { admin, adminRaw, createMerchant, merchantRequest } = client;
type TestMerchant = client.TestMerchant;
const BTC_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`)).derive(
  "m/84'/0'/0'",
).publicExtendedKey;
const txHash = () => randomBytes(32).toString('hex');
const same = (actual: unknown, expected: unknown, body?: unknown) =>
  assert.deepEqual(actual, expected, JSON.stringify(body ?? actual));

describe('crypto money safety (docs/decisions.md sections 13, 14 and 6)', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let merchant: TestMerchant;
  const tokens: Record<string, string> = {};

  before(async () => {
    // MANUAL_CREDIT_MAX_RATIO 1.1 here: 10 % over cryptoAmount may be credited by hand.
    t = await startTestApp({ config: { manualCreditMaxRatio: '1.1' } });
    receiver = await startReceiver();
    merchant = await createMerchant(t.app, { payment_types: ['btc'], payin_fee_percent: 2 });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'btc', xpub: BTC_XPUB });
    for (const role of ['support', 'admin']) {
      const username = `${role.slice(0, 3)}_${randomUUID().slice(0, 8)}`;
      await admin(t.app, 'POST', '/admin/operators', { username, role, password: 'a-long-passphrase' });
      tokens[role] = (
        await admin<{ token: string }>(t.app, 'POST', `/admin/operators/${username}/tokens`, {
          name: 'test',
        })
      ).token;
    }
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  /** A pending btc order of 0.01 BTC (coin mode: its cryptoAmount is 0.01000000). */
  async function btcOrder(fields: Record<string, unknown> = {}) {
    await admin(t.app, 'PUT', '/admin/rates', { base: 'BTC', quote: 'RUB', rate: '3000000' });
    const body = { merchant_id: merchant.id, amount: 0.01, type: 'btc', currency: 'BTC', ...fields };
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', { body });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { address: string; cryptoAmount: string } };
  }
  const confirmAs = (role: 'support' | 'admin', id: string, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: `/admin/orders/${id}/confirm`,
      headers: { authorization: `Bearer ${tokens[role]}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const notify = (fields: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/chain/notifications',
      headers: { authorization: `Bearer ${CHAIN_WATCHER_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ network: 'BTC', confirmations: 3, ...fields }),
    });
  const readOrder = async (id: string) =>
    (await merchantRequest(t.app, merchant, `/merchant/order/${id}`)).json();
  const credits = async (orderId: string) =>
    (
      await admin<{ entries: Array<{ order_id: string | null; kind: string; amount: string }> }>(
        t.app,
        'GET',
        `/admin/merchants/${merchant.id}/ledger`,
      )
    ).entries.filter((e) => e.order_id === orderId);
  const audit = async (orderId: string) =>
    admin<Array<{ action: string; actor: string; after: Record<string, unknown> }>>(
      t.app,
      'GET',
      `/admin/audit?target_id=${orderId}`,
    );

  describe('item 1: a manual credit is at most cryptoAmount x MANUAL_CREDIT_MAX_RATIO', () => {
    it('support confirming 1,000,000 x the amount: 403 naming received_amount, nothing recorded', async () => {
      const order = await btcOrder();
      const res = await confirmAs('support', order.id, { tx_hash: txHash(), received_amount: '10000' });
      same([res.statusCode, res.json().message], [403, 'FORBIDDEN'], res.body);
      assert.ok(JSON.stringify(res.json().details).includes('received_amount'), res.body);
      same([(await readOrder(order.id)).status, await credits(order.id)], ['pending', []]);
    });

    it('support may credit up to the ratio (1.1 x): 0.011 of 0.01 is credited', async () => {
      const order = await btcOrder();
      const res = await confirmAs('support', order.id, { tx_hash: txHash(), received_amount: '0.011' });
      same([res.statusCode, res.json().data?.confirmation?.outcome], [200, 'credited'], res.body);
      // 0.011 BTC x 3,000,000 = 33,000 RUB, less 2 %.
      same(
        (await credits(order.id)).map((e) => money(e.amount).toFixed(2)),
        ['32340.00'],
      );
    });

    it('partial payments add up to the limit: the one that crosses it is refused for support', async () => {
      const order = await btcOrder();
      const first = await confirmAs('support', order.id, { tx_hash: txHash(), received_amount: '0.006' });
      same([first.statusCode, first.json().data?.confirmation?.outcome], [200, 'partial'], first.body);
      const over = await confirmAs('support', order.id, { tx_hash: txHash(), received_amount: '0.006' });
      same([over.statusCode, over.json().message], [403, 'FORBIDDEN'], over.body);
      same([(await readOrder(order.id)).status, await credits(order.id)], ['pending', []]);
    });

    it('an admin above the limit needs a reason; with one it is credited and audited with both amounts', async () => {
      const order = await btcOrder();
      const tx = txHash();
      const noReason = await confirmAs('admin', order.id, { tx_hash: tx, received_amount: '0.5' });
      same([noReason.statusCode, noReason.json().message], [400, 'VALIDATION_ERROR'], noReason.body);
      assert.ok(JSON.stringify(noReason.json().details).includes('reason'), noReason.body);
      assert.equal((await readOrder(order.id)).status, 'pending');
      const ok = await confirmAs('admin', order.id, {
        tx_hash: tx,
        received_amount: '0.5',
        reason: 'customer sent 0.5 BTC by mistake; refund agreed off-platform',
      });
      same([ok.statusCode, ok.json().data?.confirmation?.outcome], [200, 'credited'], ok.body);
      const entry = (await audit(order.id)).find((a) => a.action === 'order.confirm_crypto');
      assert.ok(entry, 'audited');
      same(
        [entry.after.crypto_amount, entry.after.received_total, entry.after.above_limit, entry.after.outcome],
        ['0.01', '0.5', '0.011', 'credited'],
        entry,
      );
      assert.match(String(entry.after.reason), /by mistake/);
      assert.match(entry.actor, /^operator:adm_/);
    });

    it('a late payment (expired order) confirmed by support is capped too', async () => {
      const order = await btcOrder();
      await admin(t.app, 'POST', `/admin/orders/${order.id}/cancel`, { reason: 'client gave up' });
      const res = await confirmAs('support', order.id, {
        tx_hash: txHash(),
        received_amount: '1',
        reason: 'paid after the timer',
      });
      same([res.statusCode, res.json().message], [403, 'FORBIDDEN'], res.body);
      same([(await readOrder(order.id)).status, await credits(order.id)], ['error', []]);
    });

    it('assigning a transfer the watcher reported as late is a manual credit: capped for support', async () => {
      const order = await btcOrder();
      await admin(t.app, 'POST', `/admin/orders/${order.id}/cancel`, { reason: 'expired' });
      const tx = txHash();
      const late = await notify({ address: order.payment_details.address, tx_hash: tx, amount: '2' });
      same(late.json().data?.outcome, 'late', late.body);
      const res = await confirmAs('support', order.id, {
        tx_hash: tx,
        received_amount: '0.01',
        reason: 'late',
      });
      same([res.statusCode, res.json().message], [403, 'FORBIDDEN'], res.body);
      same(await credits(order.id), []);
    });

    it('a chain report credits what is received up to CHAIN_CREDIT_MAX_RATIO (docs/decisions.md sections 8 and 34); beyond, review', async () => {
      const order = await btcOrder();
      const res = await notify({ address: order.payment_details.address, tx_hash: txHash(), amount: '0.02' });
      same(res.json().data?.outcome, 'credited', res.body);
      same(
        (await credits(order.id)).map((e) => money(e.amount).toFixed(2)),
        ['58800.00'],
      );
      const far = await btcOrder();
      const held = await notify({ address: far.payment_details.address, tx_hash: txHash(), amount: '1' });
      same(held.json().data?.outcome, 'review', held.body);
      same(await credits(far.id), []);
    });
  });

  describe('item 2: one transfer is one key (network, normalised hash, position)', () => {
    it('0x+lower, 0x+UPPER, lower and UPPER of one hash credit once', async () => {
      const order = await btcOrder();
      const hex = txHash();
      const address = order.payment_details.address;
      const outcomes: string[] = [];
      for (const spelling of [`0x${hex}`, `0x${hex.toUpperCase()}`, hex, hex.toUpperCase(), ` ${hex} `]) {
        const res = await notify({ address, tx_hash: spelling, amount: '0.01' });
        assert.equal(res.statusCode, 200, res.body);
        outcomes.push(res.json().data.outcome);
      }
      same(outcomes, ['credited', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
      assert.equal((await credits(order.id)).length, 1);
      const listed = await admin<{ transactions_needing_attention: unknown[] }>(
        t.app,
        'GET',
        '/admin/crypto',
      );
      assert.ok(Array.isArray(listed.transactions_needing_attention));
    });

    it('an operator confirming a watcher-reported hash in another spelling changes nothing', async () => {
      const order = await btcOrder();
      const hex = txHash();
      await notify({ address: order.payment_details.address, tx_hash: hex, amount: '0.004' });
      const res = await confirmAs('support', order.id, {
        tx_hash: `0x${hex.toUpperCase()}`,
        received_amount: '0.004',
      });
      same([res.statusCode, res.json().data?.confirmation?.outcome], [200, 'duplicate'], res.body);
      same(money((await readOrder(order.id)).payment_details.cryptoAmount).toFixed(), '0.01');
    });

    it('two transfers of one transaction (positions 0 and 1) both count; the same position once', async () => {
      const order = await btcOrder();
      const hex = txHash();
      const address = order.payment_details.address;
      const pay = async (position: number | undefined) =>
        (
          await notify({
            address,
            tx_hash: hex,
            amount: '0.005',
            ...(position === undefined ? {} : { position }),
          })
        ).json().data.outcome;
      same(
        [await pay(undefined), await pay(0), await pay(1), await pay(1)],
        ['partial', 'duplicate', 'credited', 'duplicate'],
      );
      assert.equal((await credits(order.id)).length, 1);
    });

    it('a transaction the watcher counted, confirmed by an operator under another position: only with a reason', async () => {
      const order = await btcOrder();
      const hex = txHash();
      const address = order.payment_details.address;
      same((await notify({ address, tx_hash: hex, amount: '0.004' })).json().data.outcome, 'partial');
      const refused = await confirmAs('support', order.id, {
        tx_hash: hex,
        position: 1,
        received_amount: '0.004',
      });
      same([refused.statusCode, refused.json().message], [400, 'VALIDATION_ERROR'], refused.body);
      same(refused.json().details[0].field, 'reason');
      assert.match(
        refused.json().details[0].problem,
        /already counted 0\.004 toward this order at position 0/,
      );
      same(
        String(
          (await admin<{ received_amount?: string }>(t.app, 'GET', `/admin/orders/${order.id}`))
            .received_amount,
        ),
        '0.004',
      );
      const given = await confirmAs('support', order.id, {
        tx_hash: hex,
        position: 1,
        received_amount: '0.004',
        reason: 'the payer sent two outputs to the address in one transaction (explorer checked)',
      });
      same(given.json().data?.confirmation?.outcome, 'partial', given.body);
      same(
        String(
          (await admin<{ received_amount?: string }>(t.app, 'GET', `/admin/orders/${order.id}`))
            .received_amount,
        ),
        '0.008',
      );
    });

    it('anything but a 64-hex hash (or TON base64) is 400 naming tx_hash, nothing recorded', async () => {
      const order = await btcOrder();
      const address = order.payment_details.address;
      for (const tx_hash of [
        'abc',
        `0x${txHash()}00`,
        `${txHash().slice(1)}g`,
        `0x${txHash().slice(2)}`,
        'x'.repeat(64),
      ]) {
        const res = await notify({ address, tx_hash, amount: '0.01' });
        same([res.statusCode, res.json().message], [400, 'VALIDATION_ERROR'], res.body);
        assert.ok(JSON.stringify(res.json().details).includes('tx_hash'), res.body);
      }
      const base64 = randomBytes(32).toString('base64');
      const res = await notify({ address, tx_hash: base64, amount: '0.01' });
      same([res.statusCode, res.json().message], [400, 'VALIDATION_ERROR'], res.body); // base64 is TON's only
      for (const position of [-1, 1.5, '1']) {
        const bad = await notify({ address, tx_hash: txHash(), amount: '0.01', position });
        same([bad.statusCode, bad.json().message], [400, 'VALIDATION_ERROR'], bad.body);
      }
      assert.equal((await readOrder(order.id)).status, 'pending');
    });
  });

  describe('item 3: the credited amount is the one amountAfterFee of the order, webhook and ledger', () => {
    it('a 1000 RUB order paid with the rounded-up cryptoAmount: all three show 980.02', async () => {
      // BTC/RUB is 3,000,000 in every file that sets it (the rates table is shared on PostgreSQL).
      await admin(t.app, 'PUT', '/admin/rates', { base: 'BTC', quote: 'RUB', rate: '3000000' });
      const body = {
        merchant_id: merchant.id,
        amount: 1000,
        type: 'btc',
        success_callback_url: `${receiver.url}/hook`,
      };
      const created = await merchantRequest(t.app, merchant, '/merchant/createOrder', { body });
      const order = created.json();
      // 1000 / 3,000,000 = 0.000333333... rounded up to 0.00033334; x 3,000,000 = 1000.02 RUB received.
      same([order.payment_details.cryptoAmount, order.amountAfterFee], ['0.00033334', 980], order);
      const paid = await notify({
        address: order.payment_details.address,
        tx_hash: txHash(),
        amount: order.payment_details.cryptoAmount,
      });
      same(paid.json().data.outcome, 'credited', paid.body);
      const read = await readOrder(order.id);
      for (let i = 0; i < 20 && !receiver.received.some((r) => r.body.includes(order.id)); i++) {
        await t.services.dispatcher.runOnce();
      }
      const hook = JSON.parse(String(receiver.received.find((r) => r.body.includes(order.id))?.body));
      const ledger = (await credits(order.id)).map((e) => money(e.amount).toNumber());
      // 1000.02 less 2 % (20.0004 -> 20.00) = 980.02, not the 980 estimated at creation.
      same([read.amountAfterFee, hook.amountAfterFee, ledger], [980.02, 980.02, [980.02]], { read, hook });
      const adminView = await admin<{ fee: string }>(t.app, 'GET', `/admin/orders/${order.id}`);
      same(money(adminView.fee).toFixed(2), '20.00', adminView);
    });
  });

  it('adminRaw helper still refuses an unauthenticated confirm (sanity of this file)', async () => {
    const order = await btcOrder();
    const res = await t.app.inject({ method: 'POST', url: `/admin/orders/${order.id}/confirm`, payload: {} });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal((await adminRaw(t.app, 'GET', `/admin/orders/${order.id}`)).statusCode, 200);
  });
});
