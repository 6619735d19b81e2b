import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { money, roundHalfUp } from '../../src/lib/money.js';
import { deriveDepositAddress } from '../../src/rails/crypto/address-derivation.js';
import { CHAIN_WATCHER_TOKEN, manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { onPostgres, testDatabaseUrl } from '../helpers/database.js';
import * as client from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';
import { tonAddress, withTonPool } from '../helpers/ton-pool.js';

// Shared database on PostgreSQL: btc and tron use the 'abandon ... about' keys that other files set
// too (same key: the counter is kept); BTC/RUB and TON/RUB are this file's; USDT/RUB is shared (90).
const { admin, adminRaw, createMerchant, merchantRequest } = client;
type TestMerchant = client.TestMerchant;
const abandon = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`));
const XPUBS = {
  btc: abandon.derive("m/84'/0'/0'").publicExtendedKey,
  tron: abandon.derive("m/44'/195'/0'").publicExtendedKey,
};
const WEBHOOK_KEYS =
  'id order_id type amount currency status created_at amountAfterFee usdtAmount usdtAmountAfterFee exchangeRate cryptoAmount';
const txHash = () => randomBytes(32).toString('hex');
const rub = (v: string | number) => money(v).toFixed(2);
const same = (actual: unknown, expected: unknown, body?: unknown) =>
  assert.deepEqual(actual, expected, JSON.stringify(body ?? actual));
/** Values of `keys` in `o`, "-" where the key is absent. */
const pick = (o: Record<string, unknown>, keys: string) => keys.split(' ').map((k) => (k in o ? o[k] : '-'));

let t: TestApp;
const expectError = (res: LightMyRequestResponse, status: number, code: string, field?: string) => {
  same([res.statusCode, res.json().message], [status, code], res.body);
  if (field) assert.ok(JSON.stringify(res.json().details ?? []).includes(field), res.body);
};
const BEARER = `Bearer ${CHAIN_WATCHER_TOKEN}`;
const notify = (app: TestApp, fields: Record<string, unknown>, authorization: string | null = BEARER) =>
  app.app.inject({
    method: 'POST',
    url: '/chain/notifications',
    headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
    payload: JSON.stringify({ confirmations: 12, ...fields }),
  });
const notifyOk = async (fields: Record<string, unknown>, app = t) => {
  const res = await notify(app, fields);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { outcome: string; order_id: string | null; status: string | null };
};
const outcome = (o: string, orderId: string | null = null, status: string | null = null) => ({
  outcome: o,
  order_id: orderId,
  status,
});
const createOk = async (m: TestMerchant, fields: Record<string, unknown>, app = t) => {
  const body = { merchant_id: m.id, ...fields };
  const res = await merchantRequest(app.app, m, '/merchant/createOrder', { body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
const readOrder = async (m: TestMerchant, id: string, app = t) =>
  (await merchantRequest(app.app, m, `/merchant/order/${id}`)).json();
const balance = async (m: TestMerchant) =>
  (await merchantRequest(t.app, m, `/merchant/balance/${m.id}`)).json();
type Entry = { amount: string; currency: string; kind: string; order_id: string | null };
const ledger = async (m: TestMerchant, app = t) =>
  (await admin<{ entries: Entry[] }>(app.app, 'GET', `/admin/merchants/${m.id}/ledger`)).entries;
/** The merchant's ledger entries of one order as [kind, currency, amount]. */
const creditsOf = async (m: TestMerchant, orderId: string, app = t) =>
  (await ledger(m, app))
    .filter((e) => e.order_id === orderId)
    .map((e) => [e.kind, e.currency, rub(e.amount)]);
const attention = async () =>
  (
    await admin<{ transactions_needing_attention: Array<Record<string, string>> }>(
      t.app,
      'GET',
      '/admin/crypto',
    )
  ).transactions_needing_attention;

describe('crypto confirmation: chain notifications and operators (docs/decisions.md sections 5, 8 and 11)', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let fiat: TestMerchant;
  let usdt: TestMerchant;
  const withHook = (fields: Record<string, unknown>) => ({
    ...fields,
    success_callback_url: `${receiver.url}/h`,
  });
  /** The webhook of an order: sent once, signed with the merchant key over the exact bytes. */
  const webhookOf = async (m: TestMerchant, id: string) => {
    for (let i = 0; i < 20 && !receiver.received.some((r) => r.body.includes(id)); i++) {
      await t.services.dispatcher.runOnce();
    }
    const hooks = receiver.received.filter((r) => r.body.includes(id));
    assert.equal(hooks.length, 1, hooks.map((h) => h.body.toString()).join('\n'));
    const hook = hooks[0] as (typeof hooks)[number];
    assert.equal(hook.headers['x-api-key'], client.sign(m.apiKey, hook.body), hook.body.toString());
    const body = JSON.parse(hook.body.toString());
    same(
      Object.keys(body),
      WEBHOOK_KEYS.split(' ').filter((k) => k in body),
      body,
    ); // docs/decisions.md section 11
    same(pick(body, 'id status'), [id, 'success'], body);
    assert.match(body.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    return body;
  };

  before(async () => {
    t = await startTestApp();
    receiver = await startReceiver();
    const settings = { payment_types: ['btc', 'usdt_trc20', 'ton'], payin_fee_percent: 2 };
    fiat = await createMerchant(t.app, { ...settings, settlement: 'fiat' });
    usdt = await createMerchant(t.app, { ...settings, settlement: 'usdt' });
    for (const [network, xpub] of Object.entries(XPUBS)) {
      await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network, xpub });
    }
    await admin(t.app, 'PUT', '/admin/rates', { base: 'BTC', quote: 'RUB', rate: '3000000' });
    await admin(t.app, 'PUT', '/admin/rates', { base: 'TON', quote: 'RUB', rate: '250.5' });
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('without the watcher token: 401 and nothing recorded; a bad body is 400', async () => {
    const order = await createOk(fiat, { amount: 0.01, type: 'btc', currency: 'BTC' });
    const tx = txHash();
    const payment = { network: 'BTC', address: order.payment_details.address, tx_hash: tx, amount: '0.01' };
    const wrong = [
      null,
      'Bearer wrong-token-0123456789abcdef',
      `Basic ${CHAIN_WATCHER_TOKEN}`,
      CHAIN_WATCHER_TOKEN,
      'Bearer ',
    ];
    for (const auth of wrong) expectError(await notify(t, payment, auth), 401, 'UNAUTHORIZED');
    assert.equal((await readOrder(fiat, order.id)).status, 'pending');
    assert.equal(
      (await attention()).some((x) => x.tx_hash === tx),
      false,
    );
    for (const bad of [
      { network: 'DOGE' },
      { amount: '-1' },
      { amount: 0 },
      { tx_hash: '' },
      { address: undefined },
    ]) {
      expectError(await notify(t, { ...payment, ...bad }), 400, 'VALIDATION_ERROR');
    }
    same(await notifyOk(payment), outcome('credited', order.id, 'success')); // the tx was never recorded
  });

  it('partial payments: pending with the paid amount recorded; the same tx_hash twice counts once', async () => {
    const order = await createOk(fiat, withHook({ amount: 0.01, type: 'btc', currency: 'BTC' }));
    const pay = (tx_hash: string, amount: string) =>
      notifyOk({ network: 'BTC', address: order.payment_details.address, tx_hash, amount });
    const [tx1, tx2, tx3] = [txHash(), txHash(), txHash()];
    same(await pay(tx1, '0.006'), outcome('partial', order.id, 'pending'));
    same(await pay(tx1, '0.006'), outcome('duplicate'));
    const row = (await attention()).find((x) => x.tx_hash === tx1) ?? {};
    same([row.outcome, row.order_id, money(row.amount ?? 0).toFixed()], ['partial', order.id, '0.006'], row);
    // 0.009 received: had the repeat of tx1 counted, this would complete the order.
    same(await pay(tx2, '0.003'), outcome('partial', order.id, 'pending'));
    assert.equal((await readOrder(fiat, order.id)).status, 'pending');
    same(await creditsOf(fiat, order.id), []);
    same(await pay(tx3, '0.001'), outcome('credited', order.id, 'success'));
    same(await creditsOf(fiat, order.id), [['payin_credit', 'RUB', '29400.00']]); // 0.01 * 3,000,000 - 2%
    const hook = await webhookOf(fiat, order.id);
    const keys = 'order_id type amount currency amountAfterFee usdtAmount usdtAmountAfterFee cryptoAmount';
    same(pick(hook, keys), [order.payment_id, 'btc', '0.01', 'BTC', 29400, '-', '-', '0.01000000'], hook);
  });

  it('overpayment is credited as received; the crediting tx again changes nothing (btc webhook)', async () => {
    const order = await createOk(fiat, withHook({ amount: 10000, type: 'btc' }));
    assert.equal(order.payment_details.cryptoAmount, '0.00333334', JSON.stringify(order));
    const before = (await balance(fiat)).balance;
    const payment = {
      network: 'BTC',
      address: order.payment_details.address,
      tx_hash: txHash(),
      amount: '0.005',
    };
    assert.equal((await notifyOk(payment)).outcome, 'credited');
    same(await creditsOf(fiat, order.id), [['payin_credit', 'RUB', '14700.00']]); // 0.005 * 3,000,000 - 2%
    const [balanceAfter, ledgerAfter] = [await balance(fiat), await ledger(fiat)];
    assert.equal(balanceAfter.balance, before + 14700, JSON.stringify(balanceAfter));
    assert.equal((await notifyOk(payment)).outcome, 'duplicate');
    assert.equal((await notifyOk({ ...payment, amount: '1' })).outcome, 'duplicate');
    same([await balance(fiat), await ledger(fiat)], [balanceAfter, ledgerAfter]);
    const hook = await webhookOf(fiat, order.id);
    const keys = 'amount currency amountAfterFee usdtAmount usdtAmountAfterFee exchangeRate cryptoAmount';
    same(pick(hook, keys), ['10000', 'RUB', 14700, '-', '-', '-', '0.00500000'], hook);
  });

  it('an unknown address is unmatched; a known address on another network is not matched', async () => {
    const stranger = HDKey.fromMasterSeed(mnemonicToSeedSync(generateMnemonic(wordlist))).derive(
      "m/84'/0'/0'",
    );
    const address = deriveDepositAddress('btc', stranger, 0);
    same(await notifyOk({ network: 'BTC', address, tx_hash: txHash(), amount: '1' }), outcome('unmatched'));
    const btc = await createOk(fiat, { amount: 0.01, type: 'btc', currency: 'BTC' });
    const trc = await createOk(fiat, { amount: 10, type: 'usdt_trc20', currency: 'USDT' });
    for (const [order, network] of [
      [btc, 'LTC'],
      [btc, 'TRC20'],
      [trc, 'ERC20'],
      [trc, 'BEP20'],
    ]) {
      const payment = { network, address: order.payment_details.address, tx_hash: txHash(), amount: '100' };
      same(await notifyOk(payment), outcome('unmatched'), payment);
      assert.equal((await readOrder(fiat, order.id)).status, 'pending');
    }
  });

  it('operator confirm needs tx_hash and received_amount, then credits what was received', async () => {
    const order = await createOk(fiat, { amount: 0.01, type: 'btc', currency: 'BTC' });
    const confirm = (body: Record<string, unknown>) =>
      adminRaw(t.app, 'POST', `/admin/orders/${order.id}/confirm`, body);
    expectError(await confirm({}), 400, 'VALIDATION_ERROR', 'tx_hash');
    expectError(await confirm({ received_amount: '0.01' }), 400, 'VALIDATION_ERROR', 'tx_hash');
    for (const received_amount of [undefined, '0', 0, '-0.01', 'abc', '']) {
      expectError(
        await confirm({ tx_hash: txHash(), received_amount }),
        400,
        'VALIDATION_ERROR',
        'received_amount',
      );
    }
    assert.equal((await readOrder(fiat, order.id)).status, 'pending');
    const partial = await confirm({ tx_hash: txHash(), received_amount: '0.004' });
    same(
      [partial.statusCode, partial.json().data?.status, partial.json().data?.confirmation?.outcome],
      [200, 'pending', 'partial'],
      partial.body,
    );
    // 0.011 received in all, above cryptoAmount: an admin (ADMIN_TOKEN) credits it with a reason only
    // (docs/decisions.md section 13).
    const noReason = await confirm({ tx_hash: txHash(), received_amount: 0.007 });
    expectError(noReason, 400, 'VALIDATION_ERROR', 'reason');
    const done = await confirm({
      tx_hash: txHash(),
      received_amount: 0.007,
      reason: 'overpaid, checked on chain',
    });
    same(
      [done.statusCode, done.json().data?.status, done.json().data?.confirmation?.outcome],
      [200, 'success', 'credited'],
      done.body,
    );
    same(await creditsOf(fiat, order.id), [['payin_credit', 'RUB', '32340.00']]); // 0.011 * 3,000,000 - 2%
    expectError(await confirm({ tx_hash: txHash(), received_amount: '0.01' }), 409, 'ORDER_STATE_CONFLICT');
  });

  it('usdt settlement credits USDT (received - fee); webhook with usdtAmountAfterFee', async () => {
    const order = await createOk(usdt, withHook({ amount: 20, type: 'usdt_trc20', currency: 'USDT' }));
    const before = await balance(usdt);
    await notifyOk({
      network: 'TRC20',
      address: order.payment_details.address,
      tx_hash: txHash(),
      amount: '20.5',
    });
    same(await creditsOf(usdt, order.id), [['payin_credit', 'USDT', '20.09']]); // 20.5 - 0.41
    const after = await balance(usdt);
    same([after.usdtBalance - before.usdtBalance, after.balance - before.balance], [20.09, 0], after);
    const hook = await webhookOf(usdt, order.id);
    const keys = 'amount currency amountAfterFee usdtAmount usdtAmountAfterFee exchangeRate cryptoAmount';
    same(pick(hook, keys), ['20', 'USDT', order.amountAfterFee, 20.5, 20.09, '-', '20.50000000'], hook);
  });

  it('fiat settlement of usdt_trc20 credits RUB (received * USDT/RUB - fee); no usdtAmountAfterFee', async () => {
    await admin(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate: '90' });
    const order = await createOk(fiat, withHook({ amount: 20, type: 'usdt_trc20', currency: 'USDT' }));
    await notifyOk({
      network: 'TRC20',
      address: order.payment_details.address,
      tx_hash: txHash(),
      amount: '20',
    });
    const credits = await creditsOf(fiat, order.id);
    // 20 * 90 = 1800 - 36. On a shared PostgreSQL another file may have set USDT/RUB in between.
    const list = await admin<Array<Record<string, string>>>(t.app, 'GET', '/admin/rates');
    const now = list.find((r) => r.base === 'USDT' && r.quote === 'RUB')?.rate ?? '90';
    const expected = (onPostgres() ? ['90', now] : ['90']).map((r) => {
      const gross = roundHalfUp(money(20).times(r), 2);
      return [['payin_credit', 'RUB', rub(gross.minus(roundHalfUp(gross.times('0.02'), 2)).toFixed())]];
    });
    assert.ok(
      expected.some((e) => JSON.stringify(e) === JSON.stringify(credits)),
      JSON.stringify({ credits, expected }),
    );
    const hook = await webhookOf(fiat, order.id);
    const keys = 'currency amountAfterFee usdtAmount usdtAmountAfterFee exchangeRate cryptoAmount';
    same(pick(hook, keys), ['USDT', Number(credits[0]?.[2]), 20, '-', '-', '20.00000000'], hook);
  });

  it('ton: the webhook usdtAmount is the TON paid; fiat credit at the order rate', () =>
    withTonPool(async () => {
      await admin(t.app, 'POST', '/admin/crypto/pool-addresses', {
        network: 'ton',
        addresses: [tonAddress()],
      });
      const order = await createOk(fiat, withHook({ amount: 12.5, type: 'ton', currency: 'TON' }));
      const payment = {
        network: 'TON',
        address: order.payment_details.address,
        tx_hash: txHash(),
        amount: '12.5',
      };
      assert.equal((await notifyOk(payment)).outcome, 'credited');
      same(await creditsOf(fiat, order.id), [['payin_credit', 'RUB', '3068.62']]); // 3131.25 - 62.63
      const hook = await webhookOf(fiat, order.id);
      const keys = 'amount currency amountAfterFee usdtAmount usdtAmountAfterFee exchangeRate cryptoAmount';
      same(pick(hook, keys), ['12.5', 'TON', 3068.62, 12.5, '-', '-', '12.50000000'], hook);
    }));

  it('the same notification 10 times in parallel credits once and sends one webhook', async () => {
    const order = await createOk(usdt, withHook({ amount: 10, type: 'usdt_trc20', currency: 'USDT' }));
    const before = (await balance(usdt)).usdtBalance;
    const payment = {
      network: 'TRC20',
      address: order.payment_details.address,
      tx_hash: txHash(),
      amount: '10',
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => notify(t, payment)));
    same(
      answers.map((r) => r.statusCode),
      Array(10).fill(200),
      answers.map((r) => r.body),
    );
    same(answers.map((r) => r.json().data.outcome).sort(), ['credited', ...Array(9).fill('duplicate')]);
    same(await creditsOf(usdt, order.id), [['payin_credit', 'USDT', '9.80']]);
    assert.equal(
      money((await balance(usdt)).usdtBalance)
        .minus(before)
        .toFixed(2),
      '9.80',
    );
    assert.equal((await webhookOf(usdt, order.id)).usdtAmountAfterFee, 9.8);
  });
});

describe('late payments after expiry (manual clock in the past, own app)', () => {
  const clock = manualClock(Date.now() - 2 * 3600_000);
  let late: TestApp;
  let m: TestMerchant;
  let longTtl: TestMerchant;
  before(async () => {
    late = await startTestApp({ clock });
    m = await createMerchant(late.app, {
      payment_types: ['btc'],
      payin_fee_percent: 2,
      crypto_order_ttl_seconds: 10,
    });
    longTtl = await createMerchant(late.app, {
      payment_types: ['btc'],
      crypto_order_ttl_seconds: 7 * 86_400,
    });
    await admin(late.app, 'PUT', '/admin/crypto/xpubs', { network: 'btc', xpub: XPUBS.btc });
    await admin(late.app, 'PUT', '/admin/rates', { base: 'BTC', quote: 'RUB', rate: '3000000' });
  });
  after(() => late.close());
  /** An order created 2 h ago (manual clock) and expired by the sweep 11 s later. */
  const expired = async () => {
    clock.set(Date.now() - 2 * 3600_000);
    const order = await createOk(m, { amount: 0.01, type: 'btc', currency: 'BTC' }, late);
    clock.advance(11_000);
    for (let i = 0; i < 20 && (await late.services.orders.expireDue()) > 0; i++);
    assert.equal((await readOrder(m, order.id, late)).status, 'error');
    return order;
  };
  const pay = (order: { payment_details: { address: string } }, tx_hash: string) =>
    notifyOk({ network: 'BTC', address: order.payment_details.address, tx_hash, amount: '0.01' }, late);
  const confirm = (id: string, body: Record<string, unknown>) =>
    adminRaw(late.app, 'POST', `/admin/orders/${id}/confirm`, body);

  it('a payment within 24 h of expiry is late: kept for operators, the order stays error', async () => {
    const order = await expired();
    clock.advance(23 * 3600_000);
    same(await pay(order, txHash()), outcome('late', order.id));
    assert.equal((await readOrder(m, order.id, late)).status, 'error');
    same(await creditsOf(m, order.id, late), []);
  });

  it('an operator confirms the late payment with a reason: success, credited', async () => {
    const order = await expired();
    const body = { tx_hash: txHash(), received_amount: '0.01' };
    expectError(await confirm(order.id, body), 400, 'VALIDATION_ERROR', 'reason');
    const res = await confirm(order.id, { ...body, reason: 'paid 5 min late' });
    same([res.statusCode, res.json().data?.status], [200, 'success'], res.body);
    same(await creditsOf(m, order.id, late), [['payin_credit', 'RUB', '29400.00']]);
  });

  it('an operator confirms with the tx_hash the watcher reported late', async () => {
    const order = await expired();
    const tx = txHash();
    assert.equal((await pay(order, tx)).outcome, 'late');
    const res = await confirm(order.id, {
      tx_hash: tx,
      received_amount: '0.01',
      reason: 'late payment found',
    });
    same([res.statusCode, res.json().data?.status], [200, 'success'], res.body);
    same(await creditsOf(m, order.id, late), [['payin_credit', 'RUB', '29400.00']]);
  });

  it('more than 24 h after the order ended a payment is unmatched', async () => {
    // Cancelled rather than expired: a long-TTL order is never due for another file's real-time sweep.
    clock.set(Date.now() - 26 * 3600_000);
    const order = await createOk(longTtl, { amount: 0.01, type: 'btc', currency: 'BTC' }, late);
    await admin(late.app, 'POST', `/admin/orders/${order.id}/cancel`, { reason: 'client gave up' });
    clock.advance(24 * 3600_000 + 60_000);
    same(await pay(order, txHash()), outcome('unmatched'));
    assert.equal((await readOrder(longTtl, order.id, late)).status, 'error');
  });
});
