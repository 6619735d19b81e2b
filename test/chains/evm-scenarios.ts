/**
 * The Ethereum watcher's scenarios (docs/decisions.md sections 25 and 34), run against each real node
 * implementation (Anvil, Hardhat Network, Ganache) and against the strict geth-style recorder:
 * network check at configuration, exact payment, partial then the rest, the native coin, two
 * transfers in one transaction, another token ignored, a reorg before the confirmations (vanished,
 * re-checked, dropped), a restart, a lag larger than one scan, and a failing provider. One node per
 * test file, shared by its scenarios; one database per file (a private one on PostgreSQL).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import type { EvmTestNode } from '../helpers/evm-rpc.js';
import {
  admin,
  adminRaw,
  createMerchant,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

const ABANDON = `${'abandon '.repeat(11)}about`;
/** The EVM account key of the test mnemonic ("abandon ... about"), m/44'/60'/0'. */
export const EVM_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON)).derive(
  "m/44'/60'/0'",
).publicExtendedKey;
/** One USDT and one ETH in their smallest units. */
export const USDT = 1_000_000n;
export const ETH = 1_000_000_000_000_000_000n;

export interface ChainView {
  chain: string;
  head: { height: number; hash: string | null } | null;
  lag_blocks: number | null;
  last_error: { at: string; message: string } | null;
  last_success_at: string | null;
  verified: { network: string; token_decimals: number | null } | null;
  recent_transfers: Array<{ tx_hash: string }>;
}

export interface AttentionRow {
  tx_hash: string;
  position: number;
  outcome: string;
  order_id: string | null;
  confirmations: number | null;
  reorged_at: string | null;
  vanished_at: string | null;
  review_reason: string | null;
}

/** What the scenarios (and a file's own extra tests) share. */
export interface ScenarioContext {
  node: EvmTestNode;
  t: TestApp;
  merchant: TestMerchant;
  token: string;
  clock: ReturnType<typeof manualClock>;
  /** The URL the watcher is configured with (the node, or something in front of it). */
  watchedUrl: string;
  order(
    type: 'usdt_erc20' | 'eth',
    amount: number,
    m?: TestMerchant,
  ): Promise<{ id: string; payment_details: { address: string } }>;
  status(id: string, m?: TestMerchant): Promise<string>;
  run(): Promise<void>;
  rows(txHash: string): Promise<AttentionRow[]>;
  chain(): Promise<ChainView | undefined>;
  usdtBalance(): Promise<number>;
}

/**
 * Registers the scenarios under `title`: `start` starts the node and answers the URL to watch (the
 * node's own, or a recorder in front of it) and a `stop`; `extra` registers a file's own tests
 * after them (same context). `skip` skips all with its reason (shown in the test output).
 */
export function evmWatcherScenarios(
  title: string,
  target: {
    start(): Promise<{ node: EvmTestNode; url: string; stop(): Promise<void> }>;
    skip?: string | false;
    /** Checked after the scenarios (a recorder's findings). */
    afterAll?(): void | Promise<void>;
    extra?(ctx: () => ScenarioContext): void;
  },
): void {
  describe(title, { skip: target.skip || false }, () => {
    // In the past, so that expiring this file's short orders never reaches other files' orders.
    const clock = manualClock(Date.now() - 2 * 3600_000);
    let ctx: ScenarioContext;
    let stopNode: (() => Promise<void>) | undefined;
    let dropDatabase: (() => Promise<void>) | undefined;

    before(async () => {
      dropDatabase = await isolateDatabase('evm_watcher');
      const started = await target.start();
      stopNode = started.stop;
      const node = started.node;
      const token = await node.deployToken(6);
      await node.mint(token, node.accounts[0] as string, 1_000_000n * USDT);
      const t = await startTestApp({ clock });
      const merchant = await createMerchant(t.app, {
        payment_types: ['usdt_erc20', 'eth'],
        settlement: 'usdt',
      });
      await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'evm', xpub: EVM_XPUB });
      for (const [base, rate] of [
        ['ETH', '250000'],
        ['USDT', '92.5'],
      ] as const)
        await admin(t.app, 'PUT', '/admin/rates', { base, quote: 'RUB', rate, ttl_seconds: 30 * 86_400 });
      ctx = {
        node,
        t,
        merchant,
        token,
        clock,
        watchedUrl: started.url,
        async order(type, amount, m = ctx.merchant) {
          const res = await merchantRequest(ctx.t.app, m, '/merchant/createOrder', {
            body: { merchant_id: m.id, amount, type, currency: type === 'eth' ? 'ETH' : 'USDT' },
          });
          assert.equal(res.statusCode, 200, res.body);
          return res.json();
        },
        async status(id, m = ctx.merchant) {
          return (await merchantRequest(ctx.t.app, m, `/merchant/order/${id}`)).json().status;
        },
        run: () => ctx.t.services.chains.runOnce('ethereum'),
        async rows(txHash) {
          const all = await admin<{ transactions_needing_attention: AttentionRow[] }>(
            ctx.t.app,
            'GET',
            '/admin/crypto',
          );
          return all.transactions_needing_attention.filter((r) => `0x${r.tx_hash}` === txHash.toLowerCase());
        },
        async chain() {
          return (await admin<ChainView[]>(ctx.t.app, 'GET', '/admin/chains')).find(
            (c) => c.chain === 'ethereum',
          );
        },
        async usdtBalance() {
          const res = await merchantRequest(ctx.t.app, ctx.merchant, `/merchant/balance/${ctx.merchant.id}`);
          return Number(
            res.json().balances.find((b: { currency: string }) => b.currency === 'USDT')?.balance ?? 0,
          );
        },
      };
    });
    after(async () => {
      await ctx?.t.close();
      await stopNode?.();
      await dropDatabase?.();
    });

    it('configuration checks the network: the chain id, a contract at token_contract, its decimals; then the cursor at head - confirmations', async () => {
      const { t, node, token } = ctx;
      const mainnet = await adminRaw(t.app, 'PUT', '/admin/chains/ethereum', { url: ctx.watchedUrl });
      assert.equal(mainnet.statusCode, 400, mainnet.body);
      assert.match(
        JSON.stringify(mainnet.json().details),
        new RegExp(`chain_id.*serves .*\\(${node.chainId}\\), not Ethereum mainnet \\(1\\)`),
      );
      const base = { url: ctx.watchedUrl, chain_id: node.chainId };
      const eoa = await adminRaw(t.app, 'PUT', '/admin/chains/ethereum', {
        ...base,
        token_contract: node.accounts[2],
      });
      assert.equal(eoa.statusCode, 400, eoa.body);
      assert.match(JSON.stringify(eoa.json().details), /token_contract.*no contract at/);
      const eighteen = await node.deployToken(18);
      const wrong = await adminRaw(t.app, 'PUT', '/admin/chains/ethereum', {
        ...base,
        token_contract: eighteen,
      });
      assert.equal(wrong.statusCode, 400, wrong.body);
      assert.match(JSON.stringify(wrong.json().details), /token_contract.*has 18 decimals, not 6/);
      const head = await node.blockNumber();
      const view = await admin<Record<string, unknown>>(t.app, 'PUT', '/admin/chains/ethereum', {
        ...base,
        token_contract: token,
        confirmations: 3,
        poll_seconds: 1,
      });
      assert.deepEqual(view.cursor, { height: Math.max(-1, head - 3 - 1), hash: null });
      assert.equal((view.verified as { token_decimals: number }).token_decimals, 6);
      assert.match((view.verified as { network: string }).network, new RegExp(`\\(${node.chainId}\\)`));
    });

    it('an exact USDT payment: awaiting until the 3rd confirmation (its block counts as 1), then credited once', async () => {
      const o = await ctx.order('usdt_erc20', 25.5);
      const before = await ctx.usdtBalance();
      const tx = await ctx.node.transferToken(ctx.token, o.payment_details.address, 25_500_000n);
      await ctx.run();
      assert.equal(await ctx.status(o.id), 'pending');
      assert.deepEqual(
        (await ctx.rows(tx)).map((r) => [r.outcome, r.confirmations]),
        [['awaiting', 1]],
      );
      await ctx.node.mine(1);
      await ctx.run();
      assert.equal(await ctx.status(o.id), 'pending');
      await ctx.node.mine(1);
      await ctx.run();
      assert.equal(await ctx.status(o.id), 'success');
      const credited = (await ctx.usdtBalance()) - before;
      assert.ok(credited > 0);
      await ctx.node.mine(3);
      await ctx.run();
      assert.equal((await ctx.usdtBalance()) - before, credited, 'credited once');
      const chain = await ctx.chain();
      assert.equal(chain?.lag_blocks, 0);
      assert.equal(chain?.last_error, null);
      assert.ok(chain?.recent_transfers.some((r) => r.tx_hash === tx));
    });

    it('a partial payment leaves the order pending; the rest completes it', async () => {
      const o = await ctx.order('usdt_erc20', 10);
      await ctx.node.transferToken(ctx.token, o.payment_details.address, 4n * USDT);
      await ctx.node.mine(3);
      await ctx.run();
      assert.equal(await ctx.status(o.id), 'pending');
      assert.equal(
        String(
          (await admin<{ received_amount?: string }>(ctx.t.app, 'GET', `/admin/orders/${o.id}`))
            .received_amount,
        ),
        '4',
      );
      await ctx.node.transferToken(ctx.token, o.payment_details.address, 6n * USDT);
      await ctx.node.mine(3);
      await ctx.run();
      assert.equal(await ctx.status(o.id), 'success');
    });

    it('the native coin: ETH in two transactions (position -1) completes an ETH order; USDT sent there is unmatched', async () => {
      const o = await ctx.order('eth', 0.5);
      const first = await ctx.node.sendNative(o.payment_details.address, (ETH * 2n) / 10n);
      const wrongAsset = await ctx.node.transferToken(ctx.token, o.payment_details.address, USDT);
      await ctx.node.mine(3);
      await ctx.run();
      assert.deepEqual(
        (await ctx.rows(first)).map((r) => [r.outcome, r.position]),
        [['partial', -1]],
      );
      assert.equal((await ctx.rows(wrongAsset))[0]?.outcome, 'unmatched');
      assert.equal(await ctx.status(o.id), 'pending');
      await ctx.node.sendNative(o.payment_details.address, (ETH * 3n) / 10n);
      await ctx.node.mine(3);
      await ctx.run();
      assert.equal(await ctx.status(o.id), 'success');
    });

    it('two Transfer logs in one transaction pay two orders: positions 0 and 1, both credited', async () => {
      const a = await ctx.order('usdt_erc20', 3);
      const b = await ctx.order('usdt_erc20', 4);
      await ctx.node.batchTransferToken(
        ctx.token,
        [a.payment_details.address, b.payment_details.address],
        [3n * USDT, 4n * USDT],
      );
      await ctx.node.mine(3);
      await ctx.run();
      assert.equal(await ctx.status(a.id), 'success');
      assert.equal(await ctx.status(b.id), 'success');
    });

    it('another token with the same Transfer event is ignored: nothing recorded, the order still pending', async () => {
      const other = await ctx.node.deployToken(6);
      await ctx.node.mint(other, ctx.node.accounts[0] as string, 100n * USDT);
      const o = await ctx.order('usdt_erc20', 9);
      const fake = await ctx.node.transferToken(other, o.payment_details.address, 9n * USDT);
      await ctx.node.mine(3);
      await ctx.run();
      assert.deepEqual(await ctx.rows(fake), []);
      assert.equal(await ctx.status(o.id), 'pending');
      assert.equal((await ctx.chain())?.last_error, null);
    });

    it('a reorg before the confirmations: the transfer vanishes, is re-checked, and is dropped after CHAIN_DROP_AFTER_SECONDS; never credited', async () => {
      const o = await ctx.order('usdt_erc20', 7);
      const snapshot = await ctx.node.snapshot();
      const tx = await ctx.node.transferToken(ctx.token, o.payment_details.address, 7n * USDT);
      await ctx.run();
      assert.equal((await ctx.rows(tx))[0]?.outcome, 'awaiting');
      await ctx.node.revert(snapshot);
      await ctx.node.mine(4);
      assert.equal(await ctx.node.receipt(tx), null, 'the node no longer has it');
      await ctx.run();
      const [vanished] = await ctx.rows(tx);
      assert.equal(vanished?.outcome, 'awaiting');
      assert.ok(vanished?.vanished_at, 'vanished, re-checked later');
      ctx.clock.advance(3700_000);
      await ctx.run();
      assert.equal((await ctx.rows(tx))[0]?.outcome, 'dropped');
      assert.equal(await ctx.status(o.id), 'pending');
    });

    it('a restart mid-way (a new service on the same database): nothing missed, nothing counted twice', async () => {
      const o = await ctx.order('usdt_erc20', 5);
      const tx = await ctx.node.transferToken(ctx.token, o.payment_details.address, 5n * USDT);
      await ctx.run();
      assert.equal((await ctx.rows(tx))[0]?.outcome, 'awaiting');
      const second = await startTestApp({ clock: ctx.clock });
      await ctx.t.close();
      ctx.t = second;
      await ctx.node.mine(3);
      await ctx.run();
      assert.equal(await ctx.status(o.id), 'success');
      const balance = await ctx.usdtBalance();
      await ctx.node.mine(2);
      await ctx.run();
      assert.equal(await ctx.usdtBalance(), balance, 'nothing counted twice after the restart');
    });

    it('a lag larger than one scan (100 blocks): GET /admin/chains shows it, the next loops catch up, the payment is credited once', async () => {
      await ctx.node.mine(110);
      const o = await ctx.order('usdt_erc20', 2);
      await ctx.node.transferToken(ctx.token, o.payment_details.address, 2n * USDT);
      await ctx.node.mine(2);
      await ctx.run();
      const lagging = await ctx.chain();
      assert.ok((lagging?.lag_blocks ?? 0) >= 10, `lag ${lagging?.lag_blocks}`);
      assert.equal(await ctx.status(o.id), 'pending');
      await ctx.run();
      assert.equal((await ctx.chain())?.lag_blocks, 0);
      assert.equal(await ctx.status(o.id), 'success');
      const balance = await ctx.usdtBalance();
      await ctx.run();
      assert.equal(await ctx.usdtBalance(), balance);
    });

    it('a failing provider (HTTP 500): the loop error is shown with the lag, nothing is credited; recovered, the payment is credited once', async () => {
      let failing = false;
      const proxy: Server = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        if (failing) return res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream node down');
        const up = await fetch(ctx.watchedUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        });
        res.writeHead(up.status, { 'content-type': 'application/json' }).end(await up.text());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
        await admin(ctx.t.app, 'PUT', '/admin/chains/ethereum', { url });
        const o = await ctx.order('usdt_erc20', 6);
        failing = true;
        await ctx.node.transferToken(ctx.token, o.payment_details.address, 6n * USDT);
        await ctx.node.mine(3);
        await assert.rejects(ctx.run(), /HTTP 500/);
        const down = await ctx.chain();
        assert.match(down?.last_error?.message ?? '', /the provider answered HTTP 500.*retried next loop/);
        assert.equal(await ctx.status(o.id), 'pending');
        failing = false;
        await ctx.run();
        await ctx.run();
        assert.equal(await ctx.status(o.id), 'success');
        const balance = await ctx.usdtBalance();
        await ctx.run();
        assert.equal(await ctx.usdtBalance(), balance, 'credited once');
      } finally {
        await admin(ctx.t.app, 'PUT', '/admin/chains/ethereum', { url: ctx.watchedUrl });
        proxy.close();
      }
    });

    target.extra?.(() => ctx);

    if (target.afterAll) it('the requests the watcher sent', async () => target.afterAll?.());
  });
}
