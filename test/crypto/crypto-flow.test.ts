import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { CHAIN_WATCHER_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import {
  admin,
  createMerchant,
  merchantRequest,
  sign,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';

const root = HDKey.fromMasterSeed(
  mnemonicToSeedSync(
    'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  ),
);

describe('crypto PAYIN: usdt_trc20 end to end', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, {
      payment_types: ['usdt_trc20', 'btc', 'sim'],
      payin_fee_percent: 2,
      settlement: 'usdt',
    });
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', {
      network: 'tron',
      xpub: root.derive("m/44'/195'/0'").publicExtendedKey,
    });
    await admin(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate: '90' });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('RUB mode: address, exact amount, no exchangeRate; the watcher confirms and the webhook follows', async () => {
    const res = await merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        amount: 1000,
        type: 'usdt_trc20',
        success_callback_url: `${receiver.url}/hook`,
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal('exchangeRate' in body, false);
    assert.match(body.payment_details.address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    assert.equal(body.payment_details.bank, 'USDT');
    assert.equal(body.payment_details.holder_name, 'TRC20');
    assert.equal(body.payment_details.amount, '1000');
    // USDT has 6 decimals (docs/decisions.md section 6): 1000 / 90 rounded up, written with 8.
    assert.equal(body.payment_details.cryptoAmount, '11.11111200');
    assert.equal(body.currency, 'RUB');
    assert.equal(body.amountAfterFee, 980);
    const notify = (tx: string, amount: string) =>
      t.app.inject({
        method: 'POST',
        url: '/chain/notifications',
        headers: { authorization: `Bearer ${CHAIN_WATCHER_TOKEN}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          network: 'TRC20',
          address: body.payment_details.address,
          tx_hash: tx,
          amount,
          confirmations: 20,
        }),
      });
    // TRON transaction ids are 64 hex characters (docs/decisions.md section 14).
    const [txA, txB] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    const partial = await notify(txA, '5');
    assert.equal(partial.json().data.outcome, 'partial', partial.body);
    const rest = await notify(txB, '6.2');
    assert.equal(rest.json().data.outcome, 'credited', rest.body);
    const again = await notify(txB, '6.2');
    assert.equal(again.json().data.outcome, 'duplicate', again.body);
    const balance = await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`);
    assert.equal(balance.json().usdtBalance, 10.98, balance.body); // 11.2 received - 2% fee (0.224 -> 0.22)
    await t.services.dispatcher.runOnce();
    const hook = receiver.received.find((r) => r.body.toString().includes(body.id));
    assert.ok(hook);
    assert.equal(hook.headers['x-api-key'], sign(merchant.apiKey, hook.body));
    const wh = JSON.parse(hook.body.toString());
    assert.deepEqual(Object.keys(wh), [
      'id',
      'order_id',
      'type',
      'amount',
      'currency',
      'status',
      'created_at',
      'amountAfterFee',
      'usdtAmount',
      'usdtAmountAfterFee',
      'cryptoAmount',
    ]);
    assert.equal(wh.cryptoAmount, '11.20000000');
    assert.equal(wh.usdtAmount, 11.2);
  });
});
