import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { CHAIN_WATCHER_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { consoleLogin } from '../helpers/console.js';
import { isolateDatabase } from '../helpers/database.js';
import {
  admin,
  adminRaw,
  createMerchant,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

// Chain credits are believed only within CHAIN_CREDIT_MAX_RATIO (docs/decisions.md section 34):
// more coins than twice the order asks, or a RUB value more than twice the order's (a rate far off
// makes a rounded-up amount worth a fortune), wait for an operator with a readable reason, listed in
// GET /admin/crypto and the console; the order and the balances do not move until a person decides.
const abandon = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`));
const BTC_XPUB = abandon.derive("m/84'/0'/0'").publicExtendedKey;
const EVM_XPUB = abandon.derive("m/44'/60'/0'").publicExtendedKey;
const txHash = () => randomBytes(32).toString('hex');

interface Row {
  tx_hash: string;
  outcome: string;
  order_id: string | null;
  review_reason: string | null;
}

describe('chain credits above CHAIN_CREDIT_MAX_RATIO wait for review', () => {
  let t: TestApp;
  let usdtMerchant: TestMerchant;
  let rubMerchant: TestMerchant;
  let dropDatabase: () => Promise<void>;

  const notify = async (fields: Record<string, unknown>) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/chain/notifications',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CHAIN_WATCHER_TOKEN}` },
      payload: JSON.stringify({ confirmations: 12, ...fields }),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data as { outcome: string; order_id: string | null; status: string | null };
  };
  const create = async (m: TestMerchant, body: Record<string, unknown>) => {
    const res = await merchantRequest(t.app, m, '/merchant/createOrder', {
      body: { merchant_id: m.id, ...body },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { id: string; crypto_amount?: number; payment_details: { address: string } };
  };
  const balances = async (m: TestMerchant) =>
    JSON.stringify((await merchantRequest(t.app, m, `/merchant/balance/${m.id}`)).json().balances);
  const reviewRow = async (hash: string) =>
    (
      await admin<{ transactions_needing_attention: Row[] }>(t.app, 'GET', '/admin/crypto')
    ).transactions_needing_attention.find((r) => r.tx_hash === hash);

  before(async () => {
    dropDatabase = await isolateDatabase('chain_review');
    t = await startTestApp();
    usdtMerchant = await createMerchant(t.app, { payment_types: ['usdt_erc20'], settlement: 'usdt' });
    rubMerchant = await createMerchant(t.app, { payment_types: ['btc'] });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'evm', xpub: EVM_XPUB });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'btc', xpub: BTC_XPUB });
  });
  after(async () => {
    await t?.close();
    await dropDatabase?.();
  });

  it('more than 2 x cryptoAmount: review with the reason, the order pending, nothing credited; 2 x itself is credited', async () => {
    const o = await create(usdtMerchant, { amount: 10, type: 'usdt_erc20', currency: 'USDT' });
    const before = await balances(usdtMerchant);
    const hash = txHash();
    const held = await notify({
      network: 'ERC20',
      address: o.payment_details.address,
      tx_hash: hash,
      amount: '20.000001',
    });
    assert.deepEqual([held.outcome, held.order_id], ['review', o.id]);
    const row = await reviewRow(hash);
    assert.equal(row?.outcome, 'review');
    assert.match(
      row?.review_reason ?? '',
      /received 20\.000001 USDT, more than 2 x the order's 10 USDT \(CHAIN_CREDIT_MAX_RATIO\)/,
    );
    assert.equal((await admin<{ status: string }>(t.app, 'GET', `/admin/orders/${o.id}`)).status, 'pending');
    assert.equal(await balances(usdtMerchant), before);

    const exact = await create(usdtMerchant, { amount: 10, type: 'usdt_erc20', currency: 'USDT' });
    const ok = await notify({
      network: 'ERC20',
      address: exact.payment_details.address,
      tx_hash: txHash(),
      amount: '20',
    });
    assert.equal(ok.outcome, 'credited');
  });

  it('an operator resolves the review with the same hash: the admin credits it with a reason (MANUAL_CREDIT_MAX_RATIO)', async () => {
    const o = await create(usdtMerchant, { amount: 5, type: 'usdt_erc20', currency: 'USDT' });
    const hash = txHash();
    assert.equal(
      (await notify({ network: 'ERC20', address: o.payment_details.address, tx_hash: hash, amount: '50' }))
        .outcome,
      'review',
    );
    const noReason = await adminRaw(t.app, 'POST', `/admin/orders/${o.id}/confirm`, {
      tx_hash: hash,
      received_amount: '50',
    });
    assert.equal(noReason.statusCode, 400, noReason.body);
    const done = await adminRaw(t.app, 'POST', `/admin/orders/${o.id}/confirm`, {
      tx_hash: hash,
      received_amount: '50',
      reason: 'checked on chain: the payer sent 50 by mistake, refund agreed',
    });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().data.status, 'success');
    assert.equal((await reviewRow(hash))?.outcome, undefined, 'no longer waiting');
  });

  it('a rate far off: a rounded-up amount worth more than 2 x the order in RUB waits, whatever the rate says', async () => {
    // BTC/RUB at the top of its sanity band: 1 RUB asks 0.00000001 BTC (rounded up), worth 10 RUB.
    await admin(t.app, 'PUT', '/admin/rates', { base: 'BTC', quote: 'RUB', rate: '999999999' });
    const o = await create(rubMerchant, { amount: 1, type: 'btc', currency: 'RUB' });
    const before = await balances(rubMerchant);
    const hash = txHash();
    const held = await notify({
      network: 'BTC',
      address: o.payment_details.address,
      tx_hash: hash,
      amount: '0.00000001',
    });
    assert.equal(held.outcome, 'review');
    assert.match(
      (await reviewRow(hash))?.review_reason ?? '',
      /is worth 10\.00 RUB .* more than 2 x the order's 1 RUB/,
    );
    assert.equal(await balances(rubMerchant), before);
  });

  it('an absurd operator rate is refused outright: 999999999999999 USDT/RUB', async () => {
    const res = await adminRaw(t.app, 'PUT', '/admin/rates', {
      base: 'USDT',
      quote: 'RUB',
      rate: '999999999999999',
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(
      JSON.stringify(res.json().details),
      /"rate".*outside the sanity bounds of USDT\/RUB \(10 to 1000\)/,
    );
  });

  it('the console lists the held transfer with its reason', async () => {
    const user = { username: `review-${Date.now()}`, password: 'a-long-password-123' };
    await admin(t.app, 'POST', '/admin/operators', { ...user, role: 'viewer' });
    const session = await consoleLogin(t.app, user.username, user.password);
    const page = await t.app.inject({
      method: 'GET',
      url: '/backoffice/crypto',
      headers: { cookie: session.cookie },
    });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /more than 2 x the order&#39;s 10 USDT|more than 2 x the order's 10 USDT/);
  });
});
