import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { type AnvilNode, startAnvil } from '../helpers/anvil.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import {
  admin,
  adminRaw,
  createMerchant,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

// Issue 20 "How it will be checked": the Ethereum watcher against a real local EVM node (Anvil from
// npm) and a Test USDT compiled once (test/fixtures). This file owns the `ethereum` watcher row of
// a shared test database; the evm xpub is the 'abandon ... about' key other files set too.
const ABANDON = `${'abandon '.repeat(11)}about`;
const TRON_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON)).derive("m/44'/195'/0'").publicExtendedKey;
const tronBase58 = (hex: string) =>
  createBase58check(sha256).encode(Uint8Array.from([0x41, ...Buffer.from(hex.slice(2), 'hex')]));
const EVM_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON)).derive("m/44'/60'/0'").publicExtendedKey;
const USDT = 1_000_000n;

interface ChainView {
  chain: string;
  head: { height: number; hash: string | null };
  lag_blocks: number | null;
  last_error: { at: string; message: string } | null;
  last_success_at: string;
  recent_transfers: Array<{ tx_hash: string }>;
}

interface AttentionRow {
  tx_hash: string;
  position: number;
  outcome: string;
  order_id: string | null;
  confirmations: number | null;
  reorged_at: string | null;
}

describe('the Ethereum watcher against Anvil (issue 20 section 1)', () => {
  // In the past, so that expiring this file's short orders never reaches other files' orders.
  const clock = manualClock(Date.now() - 2 * 3600_000);
  let anvil: AnvilNode;
  let t: TestApp;
  let merchant: TestMerchant;
  let token: string;

  const order = async (type: string, amount: number, m = merchant) => {
    const res = await merchantRequest(t.app, m, '/merchant/createOrder', {
      body: { merchant_id: m.id, amount, type, currency: type === 'eth' ? 'ETH' : 'USDT' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { address: string } };
  };
  const status = async (id: string, m = merchant) =>
    (await merchantRequest(t.app, m, `/merchant/order/${id}`)).json().status as string;
  const run = () => t.services.chains.runOnce('ethereum');
  const rows = async (txHash: string) =>
    (
      await admin<{ transactions_needing_attention: AttentionRow[] }>(t.app, 'GET', '/admin/crypto')
    ).transactions_needing_attention.filter((r) => `0x${r.tx_hash}` === txHash.toLowerCase());
  const usdtBalance = async () =>
    (await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`))
      .json()
      .balances.find((b: { currency: string }) => b.currency === 'USDT')?.balance ?? 0;

  before(async () => {
    anvil = await startAnvil();
    token = await anvil.deployToken(6);
    await anvil.mint(token, anvil.accounts[0] as string, 1_000_000n * USDT);
    t = await startTestApp({ clock });
    merchant = await createMerchant(t.app, {
      payment_types: ['usdt_erc20', 'eth', 'usdt_trc20'],
      settlement: 'usdt',
    });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'evm', xpub: EVM_XPUB });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'tron', xpub: TRON_XPUB });
  });
  after(async () => {
    await t?.close();
    await anvil?.stop();
  });

  it('PUT checks eth_chainId: the mainnet id against a test node is 400 naming chain_id', async () => {
    const res = await adminRaw(t.app, 'PUT', '/admin/chains/ethereum', { url: anvil.url });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(JSON.stringify(res.json().details), /chain_id.*serves chain 31337, not 1/);
    const dead = await adminRaw(t.app, 'PUT', '/admin/chains/ethereum', {
      url: 'http://127.0.0.1:1/',
      chain_id: 31337,
    });
    assert.equal(dead.statusCode, 400, dead.body);
    assert.match(JSON.stringify(dead.json().details), /"url"/);
  });

  it('configured with the test chain id: merged settings, the API key never shown, the cursor at head - confirmations', async () => {
    const head = await anvil.blockNumber();
    const view = await admin<Record<string, unknown>>(t.app, 'PUT', '/admin/chains/ethereum', {
      url: anvil.url,
      chain_id: 31337,
      token_contract: token,
      confirmations: 3,
      api_key: 'secret-key-never-shown',
    });
    assert.equal(view.enabled, true);
    assert.equal(view.confirmations, 3);
    assert.equal(view.token_contract, token);
    assert.equal(view.api_key_set, true);
    assert.deepEqual(view.cursor, { height: Math.max(-1, head - 3 - 1), hash: null });
    // Merge: a later PUT of one field keeps the others.
    const again = await admin<Record<string, unknown>>(t.app, 'PUT', '/admin/chains/ethereum', {
      poll_seconds: 2,
      api_key: null,
    });
    assert.equal(again.confirmations, 3);
    assert.equal(again.poll_seconds, 2);
    assert.equal(again.api_key_set, false);
    const list = await adminRaw(t.app, 'GET', '/admin/chains');
    assert.doesNotMatch(list.body, /secret-key-never-shown/);
    const names = list.json().data.map((c: { chain: string }) => c.chain);
    assert.deepEqual(names, ['ethereum', 'bsc', 'tron', 'ton', 'bitcoin', 'litecoin']);
  });

  it('an exact USDT payment: awaiting until the 3rd confirmation (its block counts as 1), then credited once', async () => {
    const o = await order('usdt_erc20', 25.5);
    const before = await usdtBalance();
    const tx = await anvil.transferToken(token, o.payment_details.address, 25_500_000n);
    await run();
    assert.equal(await status(o.id), 'pending');
    assert.equal((await rows(tx))[0]?.outcome, 'awaiting');
    assert.equal((await rows(tx))[0]?.confirmations, 1);
    await anvil.mine(1);
    await run();
    assert.equal(await status(o.id), 'pending');
    assert.equal((await rows(tx))[0]?.confirmations, 2);
    await anvil.mine(1);
    await run();
    assert.equal(await status(o.id), 'success');
    await anvil.mine(5);
    await run();
    await run();
    assert.equal(Number(await usdtBalance()) - Number(before) > 0, true);
    const credited = Number(await usdtBalance()) - Number(before);
    await run();
    assert.equal(Number(await usdtBalance()) - Number(before), credited, 'credited once');
    const chain = (await admin<ChainView[]>(t.app, 'GET', '/admin/chains')).find(
      (c) => c.chain === 'ethereum',
    );
    assert.equal(chain?.head.height, await anvil.blockNumber());
    assert.equal(chain?.lag_blocks, 0);
    assert.equal(chain?.last_error, null);
    assert.ok(chain?.recent_transfers.some((r: { tx_hash: string }) => r.tx_hash === tx));
  });

  it('a partial payment leaves the order pending; the rest completes it', async () => {
    const o = await order('usdt_erc20', 10);
    await anvil.transferToken(token, o.payment_details.address, 4n * USDT);
    await anvil.mine(3);
    await run();
    assert.equal(await status(o.id), 'pending');
    const view = await admin<{ received_amount?: string }>(t.app, 'GET', `/admin/orders/${o.id}`);
    assert.equal(String(view.received_amount ?? ''), '4');
    await anvil.transferToken(token, o.payment_details.address, 6n * USDT);
    await anvil.mine(3);
    await run();
    assert.equal(await status(o.id), 'success');
  });

  it('two Transfer logs in one transaction pay two orders: positions 0 and 1, both credited', async () => {
    const a = await order('usdt_erc20', 3);
    const b = await order('usdt_erc20', 4);
    const tx = await anvil.batchTransferToken(
      token,
      [a.payment_details.address, b.payment_details.address],
      [3n * USDT, 4n * USDT],
    );
    await anvil.mine(3);
    await run();
    assert.equal(await status(a.id), 'success');
    assert.equal(await status(b.id), 'success');
    const receipt = await anvil.receipt(tx);
    assert.equal(receipt?.logs.length, 2);
  });

  it('a reorg before the confirmations removes the transfer: dropped, never credited', async () => {
    const o = await order('usdt_erc20', 7);
    const tx = await anvil.transferToken(token, o.payment_details.address, 7n * USDT);
    await run();
    assert.equal((await rows(tx))[0]?.outcome, 'awaiting');
    await anvil.reorg(1);
    assert.equal(await anvil.receipt(tx), null);
    await anvil.mine(4);
    await run();
    await run();
    assert.equal(await status(o.id), 'pending');
    assert.equal((await rows(tx))[0]?.outcome, 'dropped');
  });

  it('a reorg after the credit raises an alert for operators: the order is not reversed', async () => {
    const o = await order('usdt_erc20', 6);
    const tx = await anvil.transferToken(token, o.payment_details.address, 6n * USDT);
    await anvil.mine(2);
    await run();
    assert.equal(await status(o.id), 'success');
    await anvil.reorg(4);
    assert.equal(await anvil.receipt(tx), null);
    await run();
    assert.equal(await status(o.id), 'success', 'never a silent reversal');
    const [row] = await rows(tx);
    assert.equal(row?.outcome, 'credited');
    assert.ok(row?.reorged_at, 'listed with the time the reorg was found');
    const audit = await admin<Array<{ action: string; target_id: string }>>(
      t.app,
      'GET',
      '/admin/audit?action=crypto.reorged_after_credit',
    );
    assert.ok(audit.some((a) => a.action === 'crypto.reorged_after_credit' && a.target_id === o.id));
  });

  it('a restart mid-way (a new service on the same database): nothing missed, nothing counted twice', async () => {
    const o = await order('usdt_erc20', 5);
    const tx = await anvil.transferToken(token, o.payment_details.address, 5n * USDT);
    await run();
    assert.equal((await rows(tx))[0]?.outcome, 'awaiting');
    const second = await startTestApp({ clock });
    try {
      await t.close();
      t = second;
      await anvil.mine(3);
      await t.services.chains.runOnce('ethereum');
      await t.services.chains.runOnce('ethereum');
      assert.equal(await status(o.id), 'success');
      const balance = await usdtBalance();
      await anvil.mine(2);
      await t.services.chains.runOnce('ethereum');
      assert.equal(await usdtBalance(), balance, 'nothing counted twice after the restart');
    } finally {
      if (t !== second) await second.close();
    }
  });

  it('USDT sent to an ETH order address is never credited: unmatched; ETH itself is seen (partial)', async () => {
    const eth = await order('eth', 1);
    const tokenTx = await anvil.transferToken(token, eth.payment_details.address, 1n * USDT);
    const coinTx = await anvil.sendNative(eth.payment_details.address, 400_000_000_000_000_000n);
    await anvil.mine(3);
    await run();
    assert.equal((await rows(tokenTx))[0]?.outcome, 'unmatched');
    assert.equal((await rows(coinTx))[0]?.outcome, 'partial');
    assert.equal((await rows(coinTx))[0]?.position, -1);
    assert.equal(await status(eth.id), 'pending');
    const view = await admin<{ received_amount?: string }>(t.app, 'GET', `/admin/orders/${eth.id}`);
    assert.equal(String(view.received_amount ?? ''), '0.4');
  });

  it('a payment after the order expired is late: the order stays error, listed for operators', async () => {
    const short = await createMerchant(t.app, {
      payment_types: ['usdt_erc20'],
      settlement: 'usdt',
      crypto_order_ttl_seconds: 10,
    });
    const o = await order('usdt_erc20', 2, short);
    clock.advance(11_000);
    for (let i = 0; i < 20 && (await t.services.orders.expireDue()) > 0; i++);
    assert.equal(await status(o.id, short), 'error');
    const tx = await anvil.transferToken(token, o.payment_details.address, 2n * USDT);
    await anvil.mine(3);
    await run();
    assert.equal(await status(o.id, short), 'error');
    assert.deepEqual(
      (await rows(tx)).map((r) => [r.outcome, r.order_id]),
      [['late', o.id]],
    );
  });

  it('TRON through the same log scanner: base58 addresses and contract mapped to hex (the node here is Anvil)', async () => {
    // java-tron serves Ethereum-style JSON-RPC; what differs for us is the address form, which this
    // checks end to end: a T... deposit address and a T... contract, logs with 20-byte hex.
    await admin(t.app, 'PUT', '/admin/chains/tron', {
      url: anvil.url,
      token_contract: tronBase58(token),
      confirmations: 2,
    });
    const o = await order('usdt_trc20', 12);
    assert.match(o.payment_details.address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const hex = `0x${Buffer.from(createBase58check(sha256).decode(o.payment_details.address).subarray(1)).toString('hex')}`;
    const tx = await anvil.transferToken(token, hex, 12n * USDT);
    await t.services.chains.runOnce('tron');
    assert.equal(await status(o.id), 'pending');
    await anvil.mine(1);
    await t.services.chains.runOnce('tron');
    assert.equal(await status(o.id), 'success');
    const tron = (await admin<ChainView[]>(t.app, 'GET', '/admin/chains')).find((c) => c.chain === 'tron');
    assert.ok(tron?.recent_transfers.some((r) => r.tx_hash === tx));
    await admin(t.app, 'PUT', '/admin/chains/tron', { enabled: false });
  });

  it('a provider failure (429) is recorded as the last error with what to do; the next good loop records its success', async () => {
    // A loopback proxy in front of Anvil that answers 429 while told to, as rate-limiting providers do.
    let limited = false;
    const proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (limited) {
        res.writeHead(429, { 'content-type': 'application/json' }).end('{"error":"rate limited"}');
        return;
      }
      const upstream = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      });
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
      await admin(t.app, 'PUT', '/admin/chains/ethereum', { url });
      limited = true;
      await assert.rejects(run(), /429/);
      const failing = (await admin<ChainView[]>(t.app, 'GET', '/admin/chains')).find(
        (c) => c.chain === 'ethereum',
      );
      assert.match(
        failing?.last_error?.message ?? '',
        /rate limited by the provider \(429\): raise poll_seconds/,
      );
      limited = false;
      await run();
      const ok = (await admin<ChainView[]>(t.app, 'GET', '/admin/chains')).find(
        (c) => c.chain === 'ethereum',
      );
      assert.ok(Date.parse(ok?.last_success_at ?? '') >= Date.parse(failing?.last_error?.at ?? ''));
    } finally {
      await admin(t.app, 'PUT', '/admin/chains/ethereum', { url: anvil.url });
      proxy.close();
    }
  });
});
