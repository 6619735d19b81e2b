import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilNode, startAnvil } from '../helpers/anvil.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import { type GethStrict, startGethStrict } from '../helpers/fakes/geth-strict.js';
import {
  admin,
  adminRaw,
  createMerchant,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { type AttentionRow, ETH, EVM_XPUB, USDT } from './evm-scenarios.js';

// One payment counts once and one doubtful payment stops nothing else (docs/decisions.md section
// 34): Anvil behind the strict recorder, whose answers the tests rewrite. An operator's record and
// the watcher's of one ETH transaction, a receipt the node does not have yet in the middle of a
// scan, and a transfer whose receipt no longer pays what was seen.
describe('one payment counts once; one doubtful payment stops nothing else (docs/decisions.md section 34)', () => {
  const clock = manualClock(Date.now() - 3600_000);
  let anvil: AnvilNode;
  let node: GethStrict;
  let t: TestApp;
  let merchant: TestMerchant;
  let token: string;
  let dropDatabase: () => Promise<void>;

  const order = async (type: 'eth' | 'usdt_erc20', amount: number) => {
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: { merchant_id: merchant.id, amount, type, currency: type === 'eth' ? 'ETH' : 'USDT' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { address: string } };
  };
  const status = async (id: string) =>
    (await merchantRequest(t.app, merchant, `/merchant/order/${id}`)).json().status as string;
  const received = async (id: string) =>
    String((await admin<{ received_amount?: string }>(t.app, 'GET', `/admin/orders/${id}`)).received_amount);
  const run = () => t.services.chains.runOnce('ethereum');
  const rows = async (txHash: string) =>
    (
      await admin<{ transactions_needing_attention: AttentionRow[] }>(t.app, 'GET', '/admin/crypto')
    ).transactions_needing_attention.filter((r) => `0x${r.tx_hash}` === txHash.toLowerCase());
  const confirm = (id: string, body: Record<string, unknown>) =>
    adminRaw(t.app, 'POST', `/admin/orders/${id}/confirm`, body);

  before(async () => {
    dropDatabase = await isolateDatabase('evm_once');
    anvil = await startAnvil();
    node = await startGethStrict(anvil.url);
    token = await anvil.deployToken(6);
    await anvil.mint(token, anvil.accounts[0] as string, 1_000_000n * USDT);
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, { payment_types: ['usdt_erc20', 'eth'], settlement: 'usdt' });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'evm', xpub: EVM_XPUB });
    for (const [base, rate] of [
      ['ETH', '250000'],
      ['USDT', '92.5'],
    ] as const)
      await admin(t.app, 'PUT', '/admin/rates', { base, quote: 'RUB', rate, ttl_seconds: 30 * 86_400 });
    await admin(t.app, 'PUT', '/admin/chains/ethereum', {
      url: node.url,
      chain_id: anvil.chainId,
      token_contract: token,
      confirmations: 1,
    });
    await run();
  });
  after(async () => {
    await t?.close();
    await node?.close();
    await anvil?.stop();
    await dropDatabase?.();
  });

  it('an ETH payment an operator confirmed by hand (no position given) is the one the watcher sees: it counts once', async () => {
    const o = await order('eth', 1);
    const tx = await anvil.sendNative(o.payment_details.address, (ETH * 6n) / 10n);
    const res = await confirm(o.id, { tx_hash: tx, received_amount: '0.6' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.confirmation.outcome, 'partial');
    await run();
    await run();
    assert.equal(await status(o.id), 'pending', '0.6 of 1 ETH paid: never completed by counting it twice');
    assert.equal(await received(o.id), '0.6');
    assert.deepEqual(
      (await rows(tx)).map((r) => [r.position, r.outcome]),
      [[-1, 'partial']],
    );
  });

  it('the watcher sees a transaction an operator counted under another position: held for review with both, never added', async () => {
    const o = await order('eth', 1);
    const tx = await anvil.sendNative(o.payment_details.address, (ETH * 6n) / 10n);
    const res = await confirm(o.id, { tx_hash: tx, position: 0, received_amount: '0.6' });
    assert.equal(res.json().data.confirmation.outcome, 'partial', res.body);
    await run();
    const byPosition = new Map((await rows(tx)).map((r) => [r.position, r]));
    assert.equal(byPosition.get(0)?.outcome, 'partial');
    assert.equal(byPosition.get(-1)?.outcome, 'review');
    assert.match(
      byPosition.get(-1)?.review_reason ?? '',
      /already counted 0\.6 toward this order at position 0/,
    );
    assert.equal(await status(o.id), 'pending');
    assert.equal(await received(o.id), '0.6');
  });

  it('an operator counting a transaction the watcher counted, under another position, needs a reason', async () => {
    const o = await order('eth', 1);
    const tx = await anvil.sendNative(o.payment_details.address, (ETH * 6n) / 10n);
    await run();
    assert.equal(await received(o.id), '0.6');
    const refused = await confirm(o.id, { tx_hash: tx, position: 0, received_amount: '0.6' });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json().details[0].field, 'reason');
    assert.match(refused.json().details[0].problem, /already counted 0\.6 toward this order at position -1/);
    assert.equal(await received(o.id), '0.6', 'nothing recorded');
    const claimed = await confirm(o.id, { tx_hash: tx, position: -1, received_amount: '0.6' });
    assert.equal(claimed.json().data.confirmation.outcome, 'duplicate', claimed.body);
  });

  it("-1 names an EVM transaction's own value: refused on a USDT order, naming position", async () => {
    const o = await order('usdt_erc20', 2);
    const res = await confirm(o.id, { tx_hash: `0x${'ab'.repeat(32)}`, position: -1, received_amount: '2' });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().details[0].field, 'position');
  });

  it('a receipt the node does not have yet in the middle of a scan: the loop fails and the cursor stays; the next loop credits it', async () => {
    const o = await order('eth', 0.5);
    const tx = await anvil.sendNative(o.payment_details.address, ETH / 2n);
    node.setLie((method, params) =>
      method === 'eth_getTransactionReceipt' && String(params[0]).toLowerCase() === tx.toLowerCase()
        ? null
        : undefined,
    );
    await assert.rejects(run(), /not its receipt there/);
    assert.deepEqual(await rows(tx), []);
    node.setLie(null);
    await run();
    assert.equal(await status(o.id), 'success', 'the payment was not skipped');
  });

  it('a transfer whose receipt no longer pays what was seen is held for review; the next transfer is still credited', async () => {
    const a = await order('usdt_erc20', 6);
    const b = await order('usdt_erc20', 7);
    const doubtful = await anvil.transferToken(token, a.payment_details.address, 6n * USDT);
    const good = await anvil.transferToken(token, b.payment_details.address, 7n * USDT);
    let asked = 0;
    // Honest to the scan, then another amount when the transfer is located again before its credit.
    node.setLie((method, params, result) => {
      if (
        method !== 'eth_getTransactionReceipt' ||
        String(params[0]).toLowerCase() !== doubtful.toLowerCase()
      )
        return undefined;
      asked += 1;
      if (asked === 1 || !result) return undefined;
      const r = result as { logs: Array<{ data: string }> };
      return {
        ...r,
        logs: r.logs.map((l) => ({ ...l, data: `0x${(1n * USDT).toString(16).padStart(64, '0')}` })),
      };
    });
    await run();
    node.setLie(null);
    const [held] = await rows(doubtful);
    assert.equal(held?.outcome, 'review');
    assert.match(held?.review_reason ?? '', /no longer shows this payment as seen/);
    assert.equal(await status(a.id), 'pending');
    assert.equal(await status(b.id), 'success', 'the other transfer was credited in the same loop');
    assert.deepEqual(await rows(good), []);
    await run();
    assert.equal(await status(a.id), 'pending', 'held, never credited by the watcher');
  });
});
