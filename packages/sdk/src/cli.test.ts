// Unit tests of the CLI: option -> request mapping, output, exit codes (no network: a fake fetch).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createOrderRequest, runCli, sniffContentType } from './cli.js';
import { type FetchLike, sign } from './index.js';

const ENV = { PAYMENT_ORDERS_URL: 'https://pay.example.test', MERCHANT_ID: 'shop1', API_KEY: 'k' };

function harness(answer: { status: number; body: unknown }) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const out: string[] = [];
  const err: string[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, init });
    return new Response(JSON.stringify(answer.body), { status: answer.status });
  };
  const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t), fetch };
  return { calls, out, err, io };
}

describe('cli', () => {
  it('create-order fiat: flags become the createOrder body; the answer is printed as JSON', async () => {
    const answer = { ok: true, id: 'lux1', payment_id: 'o-1', status: 'pending' };
    const h = harness({ status: 200, body: answer });
    const code = await runCli(
      [
        'create-order',
        '--amount',
        '1000',
        '--type',
        'sim',
        '--order-id',
        'o-1',
        '--currency',
        'RUB',
        '--callback-url',
        'https://shop.example/cb',
        '--amount-up',
        '30',
        '--amount-down',
        '20',
      ],
      ENV,
      h.io,
    );
    assert.equal(code, 0, h.err.join(''));
    assert.deepEqual(JSON.parse(h.out.join('')), answer);
    assert.equal(h.calls[0]?.url, 'https://pay.example.test/merchant/createOrder');
    assert.deepEqual(JSON.parse(String(h.calls[0]?.init.body)), {
      merchant_id: 'shop1',
      amount: 1000,
      type: 'sim',
      order_id: 'o-1',
      success_callback_url: 'https://shop.example/cb',
      currency: 'RUB',
      amountUp: 30,
      amountDown: 20,
    });
    const headers = h.calls[0]?.init.headers as Record<string, string>;
    assert.equal(headers['x-api-key'], sign('k', String(h.calls[0]?.init.body)));
  });

  it('create-order PAYOUT: payout_details from the holder flags', () => {
    assert.deepEqual(
      createOrderRequest([
        '--amount=500',
        '--type=card',
        '--direction=PAYOUT',
        '--holder-account=2200123456789012',
        '--holder-name=Ivan Petrov',
        '--method-name=Sberbank',
      ]),
      {
        amount: 500,
        type: 'card',
        direction: 'PAYOUT',
        payout_details: {
          holderAccount: '2200123456789012',
          holderName: 'Ivan Petrov',
          methodName: 'Sberbank',
        },
      },
    );
  });

  it('create-order crypto: decimal amount and coin currency; no deviation fields', () => {
    assert.deepEqual(
      createOrderRequest([
        '--amount',
        '12.5',
        '--type',
        'usdt_trc20',
        '--currency',
        'USDT',
        '--amount-up',
        '5',
      ]),
      { amount: 12.5, type: 'usdt_trc20', currency: 'USDT' },
    );
  });

  it('usage errors exit 2 without a request', async () => {
    const cases: Array<[string[], Record<string, string>]> = [
      [['create-order', '--type', 'sim'], ENV],
      [['create-order', '--amount', 'ten', '--type', 'sim'], ENV],
      [['create-order', '--amount', '1', '--type', 'sim', '--amount-up', '1.5'], ENV],
      [['create-order', '--amount', '1', '--type', 'sim', '--direction', 'PAYOUT'], ENV],
      [['create-order', '--amount', '1', '--type', 'sim', '--bogus', 'x'], ENV],
      [['order'], ENV],
      [['upload-receipt', '--order-id', 'o'], ENV],
      [['upload-receipt', '--order-id', 'o', '--file', 'a', '--url', 'b'], ENV],
      [['frobnicate'], ENV],
      [['balance'], { MERCHANT_ID: 'shop1', API_KEY: 'k' }],
      [[], ENV],
    ];
    for (const [argv, env] of cases) {
      const h = harness({ status: 200, body: {} });
      assert.equal(await runCli(argv, env, h.io), 2, argv.join(' '));
      assert.equal(h.calls.length, 0, argv.join(' '));
      assert.match(h.err.join(''), /Usage: payment-orders/, argv.join(' '));
    }
  });

  it('an API error exits 1 with the code on stderr', async () => {
    const h = harness({
      status: 404,
      body: { success: false, ok: false, status: 404, message: 'ORDER_NOT_FOUND' },
    });
    assert.equal(await runCli(['order', 'nope'], ENV, h.io), 1);
    assert.deepEqual(JSON.parse(h.err.join('')), { error: 'ORDER_NOT_FOUND', status: 404, details: [] });
    assert.equal(h.out.length, 0);
    assert.equal(h.calls[0]?.url, 'https://pay.example.test/merchant/order/nope');
  });

  it('upload-receipt --file: multipart with the file name and the sniffed type', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sdk-cli-'));
    try {
      const path = join(dir, 'receipt.png');
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
      await writeFile(path, png);
      const h = harness({ status: 200, body: { success: true, purchaseId: 'o-1', internalId: 'lux1' } });
      assert.equal(await runCli(['upload-receipt', '--order-id', 'o-1', '--file', path], ENV, h.io), 0);
      const form = h.calls[0]?.init.body;
      assert.ok(form instanceof FormData);
      const file = form.get('receipt') as File;
      assert.equal(file.name, 'receipt.png');
      assert.equal(file.type, 'image/png');
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), png);
      assert.deepEqual(JSON.parse(h.out.join('')), { success: true, purchaseId: 'o-1', internalId: 'lux1' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('upload-receipt --url: the JSON form', async () => {
    const h = harness({ status: 200, body: { success: true } });
    assert.equal(
      await runCli(['upload-receipt', '--order-id', 'o-1', '--url', 'https://f.example/r.pdf'], ENV, h.io),
      0,
    );
    assert.equal(h.calls[0]?.init.body, '{"orderId":"o-1","receiptUrl":"https://f.example/r.pdf"}');
  });

  it('sniffs PDF, JPEG, PNG; anything else is octet-stream', () => {
    assert.equal(sniffContentType(Buffer.from('%PDF-1.4\n')), 'application/pdf');
    assert.equal(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
    assert.equal(
      sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
      'image/png',
    );
    assert.equal(sniffContentType(Buffer.from('GIF89a')), 'application/octet-stream');
    assert.equal(sniffContentType(new Uint8Array()), 'application/octet-stream');
  });
});
