import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { chainSources } from '../../src/rails/chains/chain-sources.js';
import { type AnvilNode, startAnvil } from '../helpers/anvil.js';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import { type GethStrict, startGethStrict } from '../helpers/fakes/geth-strict.js';
import { admin, createMerchant, merchantRequest, type TestMerchant } from '../helpers/merchant-client.js';
import type { AttentionRow, ChainView } from './evm-scenarios.js';

// A node that lies (docs/decisions.md section 34): Anvil behind the strict recorder, whose answers
// the test rewrites. A log of another contract, a Transfer whose `to` topic is not an address word,
// 2^256-1 units, garbage and silence: the watcher keeps running, shows the error and the lag,
// credits nothing it cannot verify, and catches up once the node tells the truth again.
const ABANDON = `${'abandon '.repeat(11)}about`;
const EVM_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON)).derive("m/44'/60'/0'").publicExtendedKey;
const USDT = 1_000_000n;
const MAX = (1n << 256n) - 1n;

describe('a node that lies credits nothing (docs/decisions.md section 34)', () => {
  const clock = manualClock(Date.now() - 3600_000);
  let anvil: AnvilNode;
  let node: GethStrict;
  let t: TestApp;
  let merchant: TestMerchant;
  let token: string;
  let other: string;
  let dropDatabase: () => Promise<void>;

  const order = async (amount: number) => {
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: { merchant_id: merchant.id, amount, type: 'usdt_erc20', currency: 'USDT' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { address: string } };
  };
  const status = async (id: string) =>
    (await merchantRequest(t.app, merchant, `/merchant/order/${id}`)).json().status as string;
  const run = () => t.services.chains.runOnce('ethereum');
  const chain = async () =>
    (await admin<ChainView[]>(t.app, 'GET', '/admin/chains')).find((c) => c.chain === 'ethereum');
  const rows = async (txHash: string) =>
    (
      await admin<{ transactions_needing_attention: Array<AttentionRow & { amount: string }> }>(
        t.app,
        'GET',
        '/admin/crypto',
      )
    ).transactions_needing_attention.filter((r) => `0x${r.tx_hash}` === txHash.toLowerCase());
  const balance = async () =>
    (await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`))
      .json()
      .balances.find((b: { currency: string }) => b.currency === 'USDT')?.balance ?? 0;
  /** Anvil's own eth_getLogs answer to `filter`. */
  const upstreamLogs = async (filter: Record<string, unknown>) =>
    (
      (await (
        await fetch(anvil.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] }),
        })
      ).json()) as { result: Array<Record<string, unknown>> }
    ).result;

  before(async () => {
    dropDatabase = await isolateDatabase('evm_lying');
    anvil = await startAnvil();
    node = await startGethStrict(anvil.url);
    token = await anvil.deployToken(6);
    other = await anvil.deployToken(6);
    await anvil.mint(token, anvil.accounts[0] as string, 1_000_000n * USDT);
    await anvil.mint(other, anvil.accounts[0] as string, 1_000_000n * USDT);
    // A short provider timeout, so that a node that never answers is seen quickly.
    t = await startTestApp({ clock, chainSources: (s) => chainSources(s, { timeoutMs: 500 }) });
    merchant = await createMerchant(t.app, { payment_types: ['usdt_erc20'], settlement: 'usdt' });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'evm', xpub: EVM_XPUB });
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

  it('a node that ignores the address filter (a log of another contract with the same event): the scan fails, nothing recorded', async () => {
    const o = await order(5);
    const forged = await anvil.transferToken(other, o.payment_details.address, 5n * USDT);
    node.setLie(async (method, params) => {
      if (method !== 'eth_getLogs') return undefined;
      const { address: _ignored, ...filter } = params[0] as Record<string, unknown>;
      return upstreamLogs(filter);
    });
    await assert.rejects(run(), /a log of contract 0x[0-9a-f]{40}, not the configured token/);
    assert.match((await chain())?.last_error?.message ?? '', /does not apply the filter \(or lies\)/);
    assert.deepEqual(await rows(forged), []);
    node.setLie(null);
    await run();
    assert.deepEqual(await rows(forged), []);
    assert.equal(await status(o.id), 'pending');
    await anvil.transferToken(token, o.payment_details.address, 5n * USDT);
    await run();
    assert.equal(await status(o.id), 'success', 'the truth is credited once the node tells it');
  });

  it('a Transfer whose `to` topic has non-zero upper bytes is not an address: the scan fails, then catches up', async () => {
    const o = await order(3);
    const before = await balance();
    node.setLie((method, _params, result) => {
      if (method !== 'eth_getLogs') return undefined;
      return (result as Array<{ topics: string[] }>).map((l) => ({
        ...l,
        topics: [l.topics[0], l.topics[1], `0xff${(l.topics[2] as string).slice(4)}`],
      }));
    });
    await anvil.transferToken(token, o.payment_details.address, 3n * USDT);
    await assert.rejects(run(), /topics are not 32-byte address words/);
    const failing = await chain();
    assert.ok((failing?.lag_blocks ?? 0) >= 1, 'the lag shows');
    assert.equal(await status(o.id), 'pending');
    node.setLie(null);
    await run();
    assert.equal(await status(o.id), 'success');
    assert.ok(Number(await balance()) > Number(before));
    const credited = await balance();
    await run();
    assert.equal(await balance(), credited, 'no double credit after the recovery');
  });

  it('2^256-1 units (the log and its receipt agree): recorded exactly, held for review with a reason, never credited', async () => {
    const o = await order(4);
    const before = await balance();
    const inflate = (l: { address: string; data: string }) =>
      l.address.toLowerCase() === token.toLowerCase() ? { ...l, data: `0x${MAX.toString(16)}` } : l;
    node.setLie((method, _params, result) => {
      if (method === 'eth_getLogs') return (result as Array<{ address: string; data: string }>).map(inflate);
      if (method === 'eth_getTransactionReceipt' && result)
        return {
          ...(result as object),
          logs: (result as { logs: Array<{ address: string; data: string }> }).logs.map(inflate),
        };
      return undefined;
    });
    const tx = await anvil.transferToken(token, o.payment_details.address, 4n * USDT);
    await run();
    node.setLie(null);
    const [row] = await rows(tx);
    assert.equal(row?.outcome, 'review');
    // Every one of the 78 digits, as decimal text: never 1.157e+71.
    assert.equal(row?.amount, `${MAX / 1_000_000n}.${(MAX % 1_000_000n).toString().padStart(6, '0')}`);
    assert.match(row?.review_reason ?? '', /more than 2 x the order's 4 USDT \(CHAIN_CREDIT_MAX_RATIO\)/);
    assert.doesNotMatch(JSON.stringify(row), /e\+/);
    assert.equal(await status(o.id), 'pending');
    assert.equal(await balance(), before, 'the balance never moved');
    const page = await t.app.inject({
      method: 'GET',
      url: '/admin/crypto',
      headers: { authorization: `Bearer ${t.config.adminToken}` },
    });
    assert.match(page.body, /CHAIN_CREDIT_MAX_RATIO/);
  });

  it('garbage and silence: a malformed answer and no answer are loop errors; the next good loop goes on', async () => {
    node.setLie((method) => (method === 'eth_blockNumber' ? { not: 'a quantity' } : undefined));
    await assert.rejects(run(), /eth_blockNumber: the node answered a malformed block number/);
    node.setLie(async (method) => {
      if (method === 'eth_blockNumber') await new Promise((resolve) => setTimeout(resolve, 1500));
      return undefined;
    });
    await assert.rejects(run(), /no answer within 0.5 s/);
    node.setLie(null);
    await run();
    const ok = await chain();
    assert.ok(Date.parse(ok?.last_success_at ?? '') >= Date.parse(ok?.last_error?.at ?? ''));
  });
});
