import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { type AnvilNode, startAnvil } from '../helpers/anvil.js';
import { packageVersion } from '../helpers/evm-nodes.js';
import { admin, adminRaw, createMerchant, merchantRequest } from '../helpers/merchant-client.js';
import { type ChainView, evmWatcherScenarios } from './evm-scenarios.js';

// The Ethereum watcher's scenarios against Anvil (the @foundry-rs/anvil devDependency), on both
// databases, and what only Anvil drives here: a reorg after the credit (anvil_reorg), a payment to
// an expired order, TRON's addresses through the same scanner, and a provider that redirects
// (secrets never follow, URLs never shown in clear).
const ABANDON = `${'abandon '.repeat(11)}about`;
const TRON_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON)).derive("m/44'/195'/0'").publicExtendedKey;
const tronBase58 = (hex: string) =>
  createBase58check(sha256).encode(Uint8Array.from([0x41, ...Buffer.from(hex.slice(2), 'hex')]));
const USDT = 1_000_000n;

let anvil: AnvilNode;

evmWatcherScenarios(
  `the Ethereum watcher against Anvil ${packageVersion('@foundry-rs/anvil')} (docs/decisions.md sections 25 and 34)`,
  {
    async start() {
      anvil = await startAnvil();
      return { node: { ...anvil, name: 'Anvil' }, url: anvil.url, stop: () => anvil.stop() };
    },
    extra(ctx) {
      it('a reorg after the credit raises an alert for operators: the order is not reversed', async () => {
        const { t, token } = ctx();
        const o = await ctx().order('usdt_erc20', 6);
        const tx = await anvil.transferToken(token, o.payment_details.address, 6n * USDT);
        await anvil.mine(2);
        await ctx().run();
        assert.equal(await ctx().status(o.id), 'success');
        await anvil.reorg(4);
        assert.equal(await anvil.receipt(tx), null);
        await ctx().run();
        assert.equal(await ctx().status(o.id), 'success', 'never a silent reversal');
        const [row] = await ctx().rows(tx);
        assert.equal(row?.outcome, 'credited');
        assert.ok(row?.reorged_at, 'listed with the time the reorg was found');
        const audit = await admin<Array<{ action: string; target_id: string }>>(
          t.app,
          'GET',
          '/admin/audit?action=crypto.reorged_after_credit',
        );
        assert.ok(audit.some((a) => a.target_id === o.id));
      });

      it('a payment after the order expired is late: the order stays error, listed for operators', async () => {
        const { t, token, clock } = ctx();
        const short = await createMerchant(t.app, {
          payment_types: ['usdt_erc20'],
          settlement: 'usdt',
          crypto_order_ttl_seconds: 10,
        });
        const o = await ctx().order('usdt_erc20', 2, short);
        clock.advance(11_000);
        for (let i = 0; i < 20 && (await t.services.orders.expireDue()) > 0; i++);
        assert.equal(await ctx().status(o.id, short), 'error');
        const tx = await anvil.transferToken(token, o.payment_details.address, 2n * USDT);
        await anvil.mine(3);
        await ctx().run();
        assert.equal(await ctx().status(o.id, short), 'error');
        assert.deepEqual(
          (await ctx().rows(tx)).map((r) => [r.outcome, r.order_id]),
          [['late', o.id]],
        );
      });

      it('TRON through the same log scanner: base58 addresses and contract mapped to hex; the network checked (mainnet refused)', async () => {
        const { t, token } = ctx();
        const tronMerchant = await createMerchant(t.app, {
          payment_types: ['usdt_trc20'],
          settlement: 'usdt',
        });
        await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'tron', xpub: TRON_XPUB });
        const mainnet = await adminRaw(t.app, 'PUT', '/admin/chains/tron', {
          url: anvil.url,
          token_contract: tronBase58(token),
        });
        assert.equal(mainnet.statusCode, 400);
        assert.match(JSON.stringify(mainnet.json().details), /chain_id.*not TRON mainnet \(728126428\)/);
        await admin(t.app, 'PUT', '/admin/chains/tron', {
          url: anvil.url,
          token_contract: tronBase58(token),
          confirmations: 2,
          chain_id: anvil.chainId,
        });
        const created = await merchantRequest(t.app, tronMerchant, '/merchant/createOrder', {
          body: { merchant_id: tronMerchant.id, amount: 12, type: 'usdt_trc20', currency: 'USDT' },
        });
        assert.equal(created.statusCode, 200, created.body);
        const o = created.json() as { id: string; payment_details: { address: string } };
        assert.match(o.payment_details.address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
        const hex = `0x${Buffer.from(createBase58check(sha256).decode(o.payment_details.address).subarray(1)).toString('hex')}`;
        const tx = await anvil.transferToken(token, hex, 12n * USDT);
        await t.services.chains.runOnce('tron');
        assert.equal(await ctx().status(o.id, tronMerchant), 'pending');
        await anvil.mine(1);
        await t.services.chains.runOnce('tron');
        assert.equal(await ctx().status(o.id, tronMerchant), 'success');
        const tron = (await admin<ChainView[]>(t.app, 'GET', '/admin/chains')).find(
          (c) => c.chain === 'tron',
        );
        assert.ok(tron?.recent_transfers.some((r) => r.tx_hash === tx));
        await admin(t.app, 'PUT', '/admin/chains/tron', { enabled: false });
      });

      it('a provider that redirects: the key and the URL credentials never follow; URLs show nowhere in clear', async () => {
        const { t } = ctx();
        // Another origin that records what reaches it: nothing must.
        const elsewhere: IncomingHttpHeaders[] = [];
        const other = createServer((req, res) => {
          elsewhere.push(req.headers);
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
        });
        await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
        let redirecting = false;
        const seen: IncomingHttpHeaders[] = [];
        const front = createServer(async (req, res) => {
          seen.push(req.headers);
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c as Buffer);
          if (redirecting) {
            const to = `http://127.0.0.1:${(other.address() as AddressInfo).port}/steal?key=abc`;
            return res.writeHead(307, { location: to }).end();
          }
          const up = await fetch(anvil.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: Buffer.concat(chunks),
          });
          res.writeHead(up.status, { 'content-type': 'application/json' }).end(await up.text());
        });
        await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
        const secretPath = 'v3/0123456789abcdef0123456789abcdef';
        const url = `http://operator:pass-w0rd-secret@127.0.0.1:${(front.address() as AddressInfo).port}/${secretPath}?apikey=query-secret`;
        try {
          const view = await admin<{ url: string }>(t.app, 'PUT', '/admin/chains/ethereum', {
            url,
          });
          assert.equal(view.url, `http://127.0.0.1:${(front.address() as AddressInfo).port}/v3/***?***`);
          // The URL credentials went as a Basic header, to the configured origin only; an API key,
          // when set, goes as the bearer instead.
          assert.equal(
            seen.at(-1)?.authorization,
            `Basic ${Buffer.from('operator:pass-w0rd-secret').toString('base64')}`,
          );
          await admin(t.app, 'PUT', '/admin/chains/ethereum', { api_key: 'provider-key-secret' });
          await ctx().run();
          assert.equal(seen.at(-1)?.authorization, 'Bearer provider-key-secret');
          redirecting = true;
          await assert.rejects(ctx().run(), /redirected \(HTTP 307\)/);
          assert.deepEqual(elsewhere, [], 'nothing reached the other origin');
          const failing = await ctx().chain();
          assert.match(
            failing?.last_error?.message ?? '',
            /redirected \(HTTP 307\) to http:\/\/127\.0\.0\.1:\d+\/steal\?\*\*\*: not followed/,
          );
          const everything = JSON.stringify([
            await adminRaw(t.app, 'GET', '/admin/chains').then((r) => r.body),
            await adminRaw(t.app, 'GET', '/admin/audit?action=chain.configure').then((r) => r.body),
          ]);
          for (const secret of [
            'pass-w0rd-secret',
            'query-secret',
            'provider-key-secret',
            secretPath,
            'key=abc',
          ])
            assert.ok(!everything.includes(secret), `${secret} appears nowhere`);
        } finally {
          redirecting = false;
          await admin(t.app, 'PUT', '/admin/chains/ethereum', { url: ctx().watchedUrl, api_key: null });
          front.close();
          other.close();
        }
      });
    },
  },
);
