import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chainSources } from '../../src/rails/chains/chain-sources.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startTonFake, type TonFake } from '../helpers/fakes/toncenter.js';
import {
  admin,
  adminRaw,
  createMerchant,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { tonAddress, withTonPool } from '../helpers/ton-pool.js';

// The TON watcher through the service against a loopback toncenter API v3 (docs/decisions.md
// sections 25 and 34; test/helpers/fakes/toncenter.ts names the ton-index-go commit and the TON docs
// it follows). The fake keeps toncenter's free plan: 10 requests a second with a key, 429 over it.
// This file owns the `ton` watcher row; pool addresses are loaded under the TON pool lock shared
// with the crypto tests.
const MASTER = tonAddress();
const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

interface AttentionRow {
  tx_hash: string;
  position: number;
  outcome: string;
  order_id: string | null;
}

describe('the TON watcher against a loopback toncenter (docs/decisions.md section 25)', () => {
  let ton: TonFake;
  let t: TestApp;
  let merchant: TestMerchant;
  let rubMerchant: TestMerchant;

  /** A TON or USDT-on-TON order on a pool address loaded for it. */
  const order = (type: 'ton' | 'usdt_ton', amount: number) =>
    withTonPool(async () => {
      await admin(t.app, 'POST', '/admin/crypto/pool-addresses', {
        network: 'ton',
        addresses: [tonAddress()],
      });
      // TON orders go to a merchant credited in RUB (at TON/RUB), USDT ones to one credited in USDT.
      const m = type === 'ton' ? rubMerchant : merchant;
      const res = await merchantRequest(t.app, m, '/merchant/createOrder', {
        body: { merchant_id: m.id, amount, type, currency: type === 'ton' ? 'TON' : 'USDT' },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { id: string; payment_details: { address: string } };
    });
  const status = async (id: string) =>
    (await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${id}`)).status;
  const run = () => t.services.chains.runOnce('ton');
  const rows = async (b64: string) =>
    (
      await admin<{ transactions_needing_attention: AttentionRow[] }>(t.app, 'GET', '/admin/crypto')
    ).transactions_needing_attention.filter((r) => r.tx_hash === hex(b64));

  const tonView = async () =>
    (
      await admin<
        Array<{
          chain: string;
          last_error: { at: string; message: string } | null;
          last_success_at: string | null;
        }>
      >(t.app, 'GET', '/admin/chains')
    ).find((c) => c.chain === 'ton');

  before(async () => {
    ton = await startTonFake({ blocks: 40, rps: { withKey: 10, withoutKey: 1 } });
    ton.addMaster(MASTER);
    // A short 429 backoff where the test makes the provider fail past its retries.
    t = await startTestApp({ chainSources: (s) => chainSources(s, { backoffMs: 20 }) });
    merchant = await createMerchant(t.app, { payment_types: ['usdt_ton'], settlement: 'usdt' });
    rubMerchant = await createMerchant(t.app, { payment_types: ['ton'], settlement: 'fiat' });
    // The value test/crypto/crypto-confirm.test.ts sets too (one shared database on PostgreSQL).
    await admin(t.app, 'PUT', '/admin/rates', { base: 'TON', quote: 'RUB', rate: '250.5' });
  });
  after(async () => {
    await t?.close();
    await ton?.close();
  });

  it('PUT /admin/chains/ton: the network checked (global_id, the jetton master), key kept, TON final after 1 block, the cursor at head - 2', async () => {
    const bad = await adminRaw(t.app, 'PUT', '/admin/chains/ton', { url: ton.url, chain_id: -3 });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(
      JSON.stringify(bad.json().details),
      /chain_id.*serves TON mainnet \(-239\), not TON testnet/,
    );
    const unknown = await adminRaw(t.app, 'PUT', '/admin/chains/ton', {
      url: ton.url,
      token_contract: tonAddress(),
    });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(JSON.stringify(unknown.json().details), /token_contract.*no jetton master/);
    const view = await admin<Record<string, unknown>>(t.app, 'PUT', '/admin/chains/ton', {
      url: ton.url,
      api_key: 'toncenter-key',
      token_contract: MASTER,
      poll_seconds: 1,
    });
    assert.equal(view.confirmations, 1);
    assert.equal(view.token_contract, MASTER);
    assert.equal(view.api_key_set, true);
    assert.equal(JSON.stringify(view).includes('toncenter-key'), false);
    assert.deepEqual(view.cursor, { height: ton.head() - 2, hash: null });
    assert.deepEqual(
      {
        network: (view.verified as { network: string }).network,
        decimals: (view.verified as { token_decimals: number }).token_decimals,
      },
      { network: 'TON mainnet (-239)', decimals: 6 },
    );
  });

  it('a TON payment of the exact amount is credited on the next loop (its block is final)', async () => {
    const o = await order('ton', 12.5);
    const tx = ton.payTon(o.payment_details.address, 12_500_000_000n);
    const asked = ton.requests.length;
    await run();
    assert.equal(await status(o.id), 'success');
    assert.ok(ton.requests.slice(asked).every((r) => r.headers['x-api-key'] === 'toncenter-key'));
    await run();
    assert.deepEqual(await rows(tx.hash), []);
  });

  it('a USDT jetton payment is credited; the notification TON that comes with it is not a payment', async () => {
    const o = await order('usdt_ton', 25.5);
    const jetton = ton.payJetton(o.payment_details.address, 25_500_000n, { master: MASTER });
    await run();
    assert.equal(await status(o.id), 'success');
    const chains = await admin<
      Array<{ chain: string; recent_transfers: Array<{ tx_hash: string; asset: string }> }>
    >(t.app, 'GET', '/admin/chains');
    const recent = chains.find((c) => c.chain === 'ton')?.recent_transfers ?? [];
    assert.deepEqual(
      recent.filter((r) => r.asset === 'token').map((r) => r.tx_hash),
      [hex(jetton.hash)],
    );
    assert.equal(
      recent.filter((r) => r.asset === 'coin').length,
      1,
      'only the TON payment of the previous test',
    );
  });

  it('a partial TON payment leaves the order pending; USDT sent to a TON order is unmatched', async () => {
    const o = await order('ton', 3);
    const part = ton.payTon(o.payment_details.address, 1_000_000_000n);
    const wrong = ton.payJetton(o.payment_details.address, 3_000_000n, { master: MASTER });
    await run();
    assert.equal(await status(o.id), 'pending');
    assert.equal((await rows(part.hash))[0]?.outcome, 'partial');
    assert.equal((await rows(wrong.hash))[0]?.outcome, 'unmatched');
    ton.payTon(o.payment_details.address, 2_000_000_000n);
    await run();
    assert.equal(await status(o.id), 'success');
  });

  it('a provider answering 429 past the retries is recorded as the last error; the next loop succeeds', async () => {
    ton.failNext(4, 429);
    await assert.rejects(run(), /429/);
    const failed = await tonView();
    assert.match(failed?.last_error?.message ?? '', /rate limited.*API key/);
    await run();
    const after = await tonView();
    assert.ok((after?.last_success_at ?? '') > (after?.last_error?.at ?? ''));
  });

  it("toncenter's rate limit with 20 open TON orders: requests per loop do not grow with orders, 429s are waited out, all 20 credited once", async () => {
    await run();
    const one = ton.requests.length;
    await run();
    const idleWithFew = ton.requests.length - one;
    const orders = [];
    for (let i = 0; i < 20; i++) orders.push(await order('ton', 1 + i));
    const before = ton.requests.length;
    await run();
    const idleWithTwenty = ton.requests.length - before;
    assert.ok(
      idleWithTwenty <= idleWithFew + 1,
      `an idle loop: ${idleWithFew} requests, with 20 orders ${idleWithTwenty}`,
    );
    for (const [i, o] of orders.entries())
      ton.payTon(o.payment_details.address, BigInt(1 + i) * 1_000_000_000n);
    const limitedBefore = ton.rateLimited;
    const started = Date.now();
    await run();
    for (
      let i = 0;
      i < 3 && (await Promise.all(orders.map((o) => status(o.id)))).some((s) => s !== 'success');
      i++
    )
      await run();
    assert.deepEqual(new Set(await Promise.all(orders.map((o) => status(o.id)))), new Set(['success']));
    const view = await tonView();
    assert.ok((view?.last_success_at ?? '') >= new Date(started).toISOString(), 'the loops succeeded');
    assert.ok(
      view?.last_error === null || (view?.last_error?.at ?? '') < new Date(started).toISOString(),
      `no loop failed: ${view?.last_error?.message}`,
    );
    // The budget kept the watcher near the plan's pace: the fake answered 429 rarely (a loaded
    // machine may bunch a few requests into one of its windows; no loop failed for it, checked above).
    assert.ok(ton.rateLimited - limitedBefore <= 6, `429s: ${ton.rateLimited - limitedBefore}`);
    await run();
    assert.deepEqual(new Set(await Promise.all(orders.map((o) => status(o.id)))), new Set(['success']));
  });
});
