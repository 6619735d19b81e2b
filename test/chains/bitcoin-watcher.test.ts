import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { chainSources } from '../../src/rails/chains/chain-sources.js';
import { ADMIN_TOKEN, manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { consoleLogin, consolePost } from '../helpers/console.js';
import { type EsploraFake, fakeTx, startEsploraFake } from '../helpers/fakes/esplora.js';
import { admin, createMerchant, merchantRequest, type TestMerchant } from '../helpers/merchant-client.js';

// the Bitcoin watcher through the service against a loopback Esplora (the fake follows
// Blockstream/esplora API.md; test/helpers/fakes/esplora.ts names the commit). This file owns the
// `bitcoin` watcher row; the btc xpub is the 'abandon ... about' key other files set too, and
// BTC/RUB is set to the value test/crypto/crypto-confirm.test.ts sets.
const ABANDON = `${'abandon '.repeat(11)}about`;
const BTC_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON)).derive("m/84'/0'/0'").publicExtendedKey;

interface AttentionRow {
  tx_hash: string;
  position: number;
  outcome: string;
  confirmations: number | null;
  vanished_at: string | null;
}

describe('the Bitcoin watcher against a loopback Esplora (docs/decisions.md section 25)', () => {
  let esplora: EsploraFake;
  let t: TestApp;
  let merchant: TestMerchant;
  const clock = manualClock();

  const order = async (amount: number) => {
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: { merchant_id: merchant.id, amount, type: 'btc', currency: 'BTC' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; payment_details: { address: string } };
  };
  const status = async (id: string) =>
    (await merchantRequest(t.app, merchant, `/merchant/order/${id}`)).json().status as string;
  const run = () => t.services.chains.runOnce('bitcoin');
  const rows = async (txid: string) =>
    (
      await admin<{ transactions_needing_attention: AttentionRow[] }>(t.app, 'GET', '/admin/crypto')
    ).transactions_needing_attention.filter((r) => r.tx_hash === txid);

  before(async () => {
    esplora = await startEsploraFake({ prefix: '/api' });
    esplora.mineEmpty(100);
    // A short 429 backoff where the test makes the provider fail past its retries.
    t = await startTestApp({ clock, chainSources: (s) => chainSources(s, { backoffMs: 20 }) });
    merchant = await createMerchant(t.app, { payment_types: ['btc'] });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'btc', xpub: BTC_XPUB });
    await admin(t.app, 'PUT', '/admin/rates', {
      base: 'BTC',
      quote: 'RUB',
      rate: '3000000',
      ttl_seconds: 30 * 86_400,
    });
    await admin(t.app, 'PUT', '/admin/chains/bitcoin', { url: esplora.url, confirmations: 2 });
  });
  after(async () => {
    await t?.close();
    await esplora?.close();
  });

  it('seen in the mempool (0 confirmations), mined (1), credited at the 2nd; output index is the position', async () => {
    const o = await order(0.01);
    const tx = fakeTx([
      { address: 'bc1qnotoursxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', value: 5000 },
      { address: o.payment_details.address, value: 1_000_000 },
    ]);
    esplora.addMempool(tx);
    await run();
    assert.deepEqual(
      (await rows(tx.txid)).map((r) => [r.outcome, r.position, r.confirmations]),
      [['awaiting', 1, 0]],
    );
    esplora.mine([tx]);
    await run();
    assert.equal(await status(o.id), 'pending');
    assert.equal((await rows(tx.txid))[0]?.confirmations, 1);
    esplora.mineEmpty(1);
    await run();
    assert.equal(await status(o.id), 'success');
    await run();
    const credits = await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`);
    assert.equal(credits.statusCode, 200);
  });

  it('a mempool payment is seen within one poll, with no new block: awaiting at 0 confirmations, never credited there', async () => {
    await run();
    const o = await order(0.005);
    const tx = fakeTx([{ address: o.payment_details.address, value: 500_000 }]);
    esplora.addMempool(tx);
    await run();
    assert.deepEqual(
      (await rows(tx.txid)).map((r) => [r.outcome, r.confirmations]),
      [['awaiting', 0]],
    );
    await run();
    assert.equal(await status(o.id), 'pending');
    esplora.mine([tx]);
    esplora.mineEmpty(1);
    await run();
    assert.equal(await status(o.id), 'success');
  });

  it('a provider answering 429 past its retries is recorded as the last error; the next loop goes on', async () => {
    esplora.failNext(4, 429);
    await assert.rejects(run(), /429/);
    const chain = (
      await admin<Array<{ chain: string; last_error: { message: string } | null }>>(
        t.app,
        'GET',
        '/admin/chains',
      )
    ).find((c) => c.chain === 'bitcoin');
    assert.match(chain?.last_error?.message ?? '', /rate limited/);
    await run();
  });

  it('npm run admin -- chain set / chain list: the same settings from the CLI', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const env = {
      PATH: process.env.PATH ?? '',
      ADMIN_URL: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
      ADMIN_TOKEN,
    };
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        env,
        timeout: 60_000,
      });
    const set = await cli(['chain', 'set', 'bitcoin', '--poll-seconds', '45', '--api-key', 'cli-secret-key']);
    assert.match(set.stdout, /"poll_seconds": 45/);
    const list = await cli(['chain', 'list']);
    assert.match(list.stdout, /"chain": "bitcoin"/);
    assert.doesNotMatch(list.stdout, /cli-secret-key/);
    assert.match(list.stdout, /"api_key_set": true/);
  });

  it('the console shows each chain and saves the same settings (a viewer cannot)', async () => {
    // Two-factor codes are made from the real time and checked at the app's: bring the app's clock
    // (frozen when the file loaded) to now, so a slow machine's earlier tests do not age the code.
    clock.set(Math.max(clock.now(), Date.now()));
    const user = { username: `chains-${Date.now()}`, password: 'a-long-password-123' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'admin' });
    const session = await consoleLogin(t.app, user.username, user.password);
    const page = await t.app.inject({
      method: 'GET',
      url: '/backoffice/chains',
      headers: { cookie: session.cookie },
    });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<strong>bitcoin<\/strong>/);
    assert.doesNotMatch(page.body, /cli-secret-key/);
    const saved = await consolePost(t.app, session, '/backoffice/chains/bitcoin', {
      confirmations: '3',
      url: '',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const chain = (
      await admin<Array<{ chain: string; confirmations: number; url: string }>>(t.app, 'GET', '/admin/chains')
    ).find((c) => c.chain === 'bitcoin');
    assert.equal(chain?.confirmations, 3);
    assert.ok(chain?.url.startsWith(esplora.url.slice(0, 20)), 'an empty field keeps its value');
    const viewer = { username: `viewer-${Date.now()}`, password: 'a-long-password-123' };
    await admin(t.app, 'POST', '/admin/operators', { ...viewer, role: 'viewer' });
    const vs = await consoleLogin(t.app, viewer.username, viewer.password);
    const refused = await consolePost(t.app, vs, '/backoffice/chains/bitcoin', { confirmations: '9' });
    assert.equal(refused.statusCode, 403);
  });

  // Last: it moves the clock an hour on.
  it('a payment a reorg removed is re-checked with growing pauses, then dropped after CHAIN_DROP_AFTER_SECONDS; the order stays pending', async () => {
    const o = await order(0.02);
    const tx = fakeTx([{ address: o.payment_details.address, value: 2_000_000 }]);
    const block = esplora.mine([tx]);
    await run();
    assert.equal((await rows(tx.txid))[0]?.outcome, 'awaiting');
    esplora.reorg(block.height, [[], []]);
    await run();
    const vanished = await rows(tx.txid);
    assert.equal(vanished[0]?.outcome, 'awaiting');
    assert.ok(vanished[0]?.vanished_at, 'marked vanished, still awaiting');
    // Not asked for again before its pause is over.
    const asked = () => esplora.requests.filter((r) => r.path === `/api/tx/${tx.txid}`).length;
    const before = asked();
    await run();
    assert.equal(asked(), before, 'no re-check within the pause');
    clock.advance(61_000);
    await run();
    assert.equal(asked(), before + 1, 're-checked once the pause is over');
    assert.equal((await rows(tx.txid))[0]?.outcome, 'awaiting');
    clock.advance(3600_000);
    await run();
    assert.equal(await status(o.id), 'pending');
    assert.equal((await rows(tx.txid))[0]?.outcome, 'dropped');
  });
});
