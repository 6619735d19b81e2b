// The merchant SDK (packages/sdk) and its CLI against the real service over real loopback HTTP
// (docs/api.md Endpoints, Authentication, Errors, Events, Limits; docs/decisions.md 1-4, 9-12).
// NETWORK RULE: every server here listens on 127.0.0.1; nothing leaves the machine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  createMerchantClient,
  MerchantApiError,
  type MerchantClient,
  type OrderInfo,
  verifyWebhook,
  type WebhookEvent,
} from '../../packages/sdk/src/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase } from '../helpers/database.js';
import { pngFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  createMerchant,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';
import { startReceiver } from '../helpers/receiver.js';
import { tonAddress, withTonPool } from '../helpers/ton-pool.js';

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../packages/sdk/src/cli.ts', import.meta.url));
const TTL = 3 * 86_400; // no expiry sweep meets these orders
const PNG = pngFile();

/** The thrown MerchantApiError of `promise` (fails the test when it resolves or throws something else). */
async function apiError(promise: Promise<unknown>): Promise<MerchantApiError> {
  const err = await promise.then(
    (value) => assert.fail(`expected a MerchantApiError, got ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof MerchantApiError, String(err));
  return err;
}

/** The port the app listens on (after `app.listen`). */
function baseUrlOf(t: TestApp): string {
  const address = t.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

describe('merchant SDK against the real service', () => {
  let t: TestApp;
  let dropDatabase: () => Promise<void>;
  let baseUrl: string;
  let m: TestMerchant;
  let other: TestMerchant;
  let sdk: MerchantClient;
  let otherSdk: MerchantClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const client = (merchant: TestMerchant, apiKey = merchant.apiKey) =>
    createMerchantClient({ baseUrl, merchantId: merchant.id, apiKey });

  before(async () => {
    // A private database on PostgreSQL: dispatcher.runOnce claims every due webhook of its database.
    dropDatabase = await isolateDatabase('sdk');
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = baseUrlOf(t);
    m = await createMerchant(t.app, {
      payin_fee_percent: 2.5,
      payout_fee_percent: 1.5,
      order_ttl_seconds: TTL,
      payment_types: ['sim', 'card', 'usdt_ton'],
    });
    other = await createMerchant(t.app, { order_ttl_seconds: TTL });
    await addRequisite(t.app, { kind: 'phone' });
    await addRequisite(t.app, { kind: 'card' });
    receiver = await startReceiver((req) =>
      req.url === '/receipt.png'
        ? { status: 200, body: PNG, headers: { 'content-type': 'image/png' } }
        : { status: 200, body: 'ok' },
    );
    sdk = client(m);
    otherSdk = client(other);
  });
  after(async () => {
    await receiver?.close();
    await t?.close();
    await dropDatabase?.();
  });

  describe('orders and reads', () => {
    const amount = uniqueAmount();
    const ext = `sdk-${randomUUID()}`;
    let id: string;

    it('createOrder fiat: the contract answer, amountAfterFee after the 2.5 % fee', async () => {
      const created = await sdk.createOrder({ amount, type: 'sim', order_id: ext, comment: 'via SDK' });
      id = created.id;
      assert.equal(created.ok, true);
      assert.match(created.id, /^lux[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(created.payment_id, ext);
      assert.equal(created.status, 'pending');
      assert.equal(created.direction, 'PAYIN');
      assert.equal(created.currency, 'RUB');
      assert.equal(created.amountAfterFee, Number((amount * 0.975).toFixed(2)));
      assert.equal(created.payment_details.amount, String(amount));
      assert.equal(created.payment_details.type, 'sim');
      assert.match(created.payment_details.address, /^7\d{10}$/);
      assert.ok(Number(created.remainingSeconds) > TTL - 60, JSON.stringify(created));
    });

    it('getOrder by external and by internal id: the same order', async () => {
      const byExt = await sdk.getOrder(ext);
      const byId = await sdk.getOrder(id);
      for (const o of [byExt, byId]) {
        assert.equal(o.id, id);
        assert.equal(o.order_id, ext);
        assert.equal(o.type, 'sim');
        assert.equal(o.amount, amount);
        assert.equal(o.status, 'pending');
        assert.equal(o.comment, 'via SDK');
        assert.equal(o.merchantFeePercent, 2.5);
        assert.equal(o.receiptStatus, null);
      }
      assert.deepEqual({ ...byExt, remainingSeconds: 0 }, { ...byId, remainingSeconds: 0 });
    });

    it('createOrder with a repeated order_id: ORDER_ALREADY_EXISTS (409)', async () => {
      const err = await apiError(sdk.createOrder({ amount: uniqueAmount(), type: 'sim', order_id: ext }));
      assert.deepEqual([err.code, err.status], ['ORDER_ALREADY_EXISTS', 409]);
    });

    it('listOrders: the order, with the filters sent in the query', async () => {
      const page = await sdk.listOrders({ order_status: 'pending', direction: 'PAYIN', size: 100 });
      assert.equal(page.page, 1);
      assert.equal(page.size, 100);
      const found = page.orders.find((o) => o.id === id);
      assert.ok(found, JSON.stringify(page));
      assert.equal(found.order_id, ext);
      assert.ok(page.orders.every((o) => o.status === 'pending' && o.direction === 'PAYIN'));
      const none = await sdk.listOrders({ order_status: 'success', type: 'sim' });
      assert.equal(
        none.orders.some((o) => o.id === id),
        false,
      );
      const yesterday = await sdk.listOrders({
        start_date: new Date(Date.now() - 3 * 86_400_000),
        end_date: new Date(Date.now() - 2 * 86_400_000),
      });
      assert.equal(yesterday.total, 0, JSON.stringify(yesterday));
    });

    it('getBalance after an admin confirm: balance = amountAfterFee', async () => {
      const before = await sdk.getBalance();
      assert.equal(before.merchant_id, m.id);
      assert.equal(before.balance, 0);
      await admin(t.app, 'POST', `/admin/orders/${id}/confirm`, {});
      const after = await sdk.getBalance(m.id);
      const expected = Number((amount * 0.975).toFixed(2));
      assert.equal(after.balance, expected);
      assert.equal(after.available, expected);
      assert.equal(after.reserved, 0);
      assert.equal(after.currency, 'RUB');
      assert.deepEqual(
        after.balances.find((b) => b.currency === 'RUB'),
        {
          currency: 'RUB',
          balance: expected,
          reserved: 0,
          available: expected,
        },
      );
      assert.equal((await sdk.getOrder(id)).status, 'success');
    });

    it('getBalance of another merchant_id: INVALID_MERCHANT_ID (400)', async () => {
      const err = await apiError(sdk.getBalance(other.id));
      assert.deepEqual([err.code, err.status], ['INVALID_MERCHANT_ID', 400]);
    });
  });

  describe('reference reads', () => {
    it('listBanks: the enabled banks of the admin list', async () => {
      const banks = await sdk.listBanks();
      const all = await admin<Array<{ code: string; name: string; enabled: boolean }>>(
        t.app,
        'GET',
        '/admin/banks',
      );
      const enabled = all.filter((b) => b.enabled).map((b) => ({ code: b.code, name: b.name }));
      assert.ok(banks.length > 0);
      assert.deepEqual(
        [...banks].sort((a, b) => a.code.localeCompare(b.code)),
        enabled.sort((a, b) => a.code.localeCompare(b.code)),
      );
      assert.ok(
        banks.some((b) => b.name === 'Sberbank'),
        JSON.stringify(banks),
      );
    });

    it('bankStandards: every bank, card 16 digits and sim 11', async () => {
      const standards = await sdk.bankStandards();
      const banks = await sdk.listBanks();
      assert.deepEqual(standards.map((s) => s.code).sort(), banks.map((b) => b.code).sort());
      const sber = standards.find((s) => s.name === 'Sberbank');
      assert.ok(sber, JSON.stringify(standards));
      assert.deepEqual(
        Object.fromEntries(sber.types.map((x) => [x.type, x.digits])),
        { card: 16, sim: 11 },
        JSON.stringify(sber),
      );
    });

    it('poolRequisites lists a published offer; createOrder with usePool takes it at its amount', async () => {
      const requisite = await addRequisite(t.app, { kind: 'phone' });
      const amount = uniqueAmount();
      const offer = await admin<{ id: string }>(t.app, 'POST', '/admin/pool/offers', {
        requisite_id: requisite.id,
        amount,
        type: 'sim',
        ttl_seconds: 600,
      });
      const offers = await sdk.poolRequisites();
      const listed = offers.find((o) => o.id === offer.id);
      assert.ok(listed, JSON.stringify(offers));
      assert.equal(listed.amount, amount);
      assert.equal(listed.type, 'sim');
      assert.ok(listed.remainingSeconds > 500 && listed.remainingSeconds <= 600, JSON.stringify(listed));
      const created = await sdk.createOrder({ usePool: true, requisiteId: offer.id, type: 'sim' });
      assert.equal(created.payment_details.amount, String(amount));
      assert.equal(created.payment_details.address, requisite.address);
      assert.equal(
        (await sdk.poolRequisites()).some((o) => o.id === offer.id),
        false,
      );
      const again = await apiError(sdk.createOrder({ usePool: true, requisiteId: offer.id, type: 'sim' }));
      assert.deepEqual([again.code, again.status], ['REQUISITES_NOT_FOUND', 409]);
    });
  });

  describe('crypto and payouts', () => {
    it('createOrder crypto (usdt_ton in USDT): the pool address and the exact cryptoAmount', () =>
      withTonPool(async () => {
        const address = tonAddress();
        await admin(t.app, 'POST', '/admin/crypto/pool-addresses', { network: 'ton', addresses: [address] });
        const created = await sdk.createOrder({ amount: 2, type: 'usdt_ton', currency: 'USDT' });
        assert.equal(created.status, 'pending');
        assert.equal(created.currency, 'USDT');
        assert.deepEqual(
          [
            created.payment_details.address,
            created.payment_details.bank,
            created.payment_details.holder_name,
            created.payment_details.cryptoAmount,
          ],
          [address, 'USDT', 'TON', '2.00000000'],
          JSON.stringify(created),
        );
        assert.equal('exchangeRate' in created, false, JSON.stringify(created));
      }));

    it('PAYOUT: INSUFFICIENT_BALANCE before funding; after a ledger adjustment, reserved = amount + 1.5 %', async () => {
      const before = await sdk.getBalance();
      // A multiple of 1000 over the available balance: the 1.5 % fee is a whole number.
      const amount = (Math.ceil(before.available / 1000) + 1) * 1000;
      const fee = (amount / 1000) * 15;
      const request = {
        direction: 'PAYOUT' as const,
        amount,
        type: 'card' as const,
        order_id: `po-${randomUUID()}`,
        payout_details: {
          holderAccount: '2200123456789012',
          holderName: 'Ivan Petrov',
          methodName: 'Sberbank',
        },
      };
      const poor = await apiError(sdk.createOrder(request));
      assert.deepEqual([poor.code, poor.status], ['INSUFFICIENT_BALANCE', 400]);
      await admin(t.app, 'POST', `/admin/merchants/${m.id}/ledger-adjustments`, {
        currency: 'RUB',
        amount: 2 * amount,
        reason: 'SDK payout test funds',
      });
      const created = await sdk.createOrder(request);
      assert.equal(created.direction, 'PAYOUT');
      assert.equal(created.status, 'pending');
      assert.equal(created.payment_id, request.order_id);
      assert.equal(created.amountAfterFee, amount + fee);
      assert.deepEqual(created.payment_details, {
        address: '2200123456789012',
        bank: 'Sberbank',
        holder_name: 'Ivan Petrov',
        type: 'card',
        amount: String(amount),
      });
      const after = await sdk.getBalance();
      assert.equal(after.balance, before.balance + 2 * amount);
      assert.equal(after.reserved, before.reserved + amount + fee);
      assert.equal(after.available, after.balance - after.reserved);
      const payouts = await sdk.listOrders({ direction: 'PAYOUT' });
      assert.deepEqual(
        payouts.orders.map((o) => o.id),
        [created.id],
      );
    });

    it('PAYOUT with a bad holder account: INVALID_HOLDER_ACCOUNT', async () => {
      const err = await apiError(
        sdk.createOrder({
          direction: 'PAYOUT',
          amount: 100,
          type: 'sim',
          payout_details: { holderAccount: '+79001234567', holderName: 'I', methodName: 'Sberbank' },
        }),
      );
      assert.deepEqual([err.code, err.status], ['INVALID_HOLDER_ACCOUNT', 400]);
    });
  });

  describe('receipts', () => {
    it('uploadReceiptFile with a real PNG; the next upload is MODERATION_IN_PROGRESS (409)', async () => {
      const ext = `rc-${randomUUID()}`;
      const created = await sdk.createOrder({ amount: uniqueAmount(), type: 'sim', order_id: ext });
      const answer = await sdk.uploadReceiptFile(ext, PNG, 'receipt.png', 'image/png');
      assert.deepEqual(answer, { success: true, purchaseId: ext, internalId: created.id });
      assert.equal((await sdk.getOrder(created.id)).receiptStatus, 'under_review');
      const err = await apiError(
        sdk.uploadReceiptFile(created.id, new Blob([new Uint8Array(PNG)]), 'again.png'),
      );
      assert.deepEqual([err.code, err.status], ['MODERATION_IN_PROGRESS', 409]);
      assert.deepEqual(err.body, {
        success: false,
        ok: false,
        status: 409,
        message: 'MODERATION_IN_PROGRESS',
      });
    });

    it('uploadReceiptFile: content that is not PDF/JPEG/PNG is RECEIPT_UNSUPPORTED_FORMAT', async () => {
      const created = await sdk.createOrder({ amount: uniqueAmount(), type: 'sim' });
      const err = await apiError(sdk.uploadReceiptFile(created.id, Buffer.from('GIF89a....'), 'r.gif'));
      assert.deepEqual([err.code, err.status], ['RECEIPT_UNSUPPORTED_FORMAT', 400]);
    });

    it('uploadReceiptUrl: the service downloads a PNG from a loopback URL', async () => {
      const created = await sdk.createOrder({ amount: uniqueAmount(), type: 'sim' });
      const answer = await sdk.uploadReceiptUrl(created.id, `${receiver.url}/receipt.png`);
      assert.deepEqual(answer, { success: true, purchaseId: created.id, internalId: created.id });
      assert.ok(receiver.received.some((r) => r.url === '/receipt.png'));
      assert.equal((await sdk.getOrder(created.id)).receiptStatus, 'under_review');
    });

    it("another merchant's order: ORDER_FORBIDDEN for reads and uploads; unknown: ORDER_NOT_FOUND", async () => {
      const theirs = await otherSdk.createOrder({ amount: uniqueAmount(), type: 'sim' });
      const read = await apiError(sdk.getOrder(theirs.id));
      assert.deepEqual([read.code, read.status], ['ORDER_FORBIDDEN', 403]);
      const upload = await apiError(sdk.uploadReceiptFile(theirs.id, PNG, 'r.png', 'image/png'));
      assert.deepEqual([upload.code, upload.status], ['ORDER_FORBIDDEN', 403]);
      const unknown = await apiError(sdk.getOrder(`nope-${randomUUID()}`));
      assert.deepEqual([unknown.code, unknown.status], ['ORDER_NOT_FOUND', 404]);
    });
  });

  describe('authentication and validation errors', () => {
    it('a wrong key: INVALID_API_KEY (401), for GET, JSON POST and multipart', async () => {
      const wrong = client(m, `${m.apiKey.slice(0, -2)}xx`);
      for (const call of [
        () => wrong.getBalance(),
        () => wrong.createOrder({ amount: uniqueAmount(), type: 'sim' }),
        () => wrong.uploadReceiptFile('x', PNG, 'r.png'),
      ]) {
        const err = await apiError(call());
        assert.deepEqual([err.code, err.status], ['INVALID_API_KEY', 401]);
      }
    });

    it("one merchant's key with another's merchant_id: INVALID_MERCHANT_ID", async () => {
      const mixed = createMerchantClient({ baseUrl, merchantId: other.id, apiKey: m.apiKey });
      const err = await apiError(mixed.createOrder({ amount: uniqueAmount(), type: 'sim' }));
      assert.deepEqual([err.code, err.status], ['INVALID_MERCHANT_ID', 400]);
    });

    it('VALIDATION_ERROR carries the details', async () => {
      const err = await apiError(
        sdk.createOrder({ amount: uniqueAmount(), type: 'sim', comment: 'x'.repeat(501) }),
      );
      assert.deepEqual([err.code, err.status], ['VALIDATION_ERROR', 400]);
      assert.ok(
        err.details.some((d) => d.field.includes('comment')),
        JSON.stringify(err.details),
      );
    });

    it('non-ASCII fields are signed over their UTF-8 bytes and accepted', async () => {
      const ext = `заказ-${randomUUID()}`;
      const created = await sdk.createOrder({
        amount: uniqueAmount(),
        type: 'sim',
        order_id: ext,
        comment: 'Привет €',
      });
      const read = await sdk.getOrder(ext);
      assert.deepEqual([read.id, read.comment], [created.id, 'Привет €']);
    });
  });

  describe('webhooks', () => {
    it('verifyWebhook: true for a real delivery, false for a changed byte or another key', async () => {
      const created = await sdk.createOrder({
        amount: uniqueAmount(),
        type: 'card',
        success_callback_url: `${receiver.url}/hook`,
      });
      await admin(t.app, 'POST', `/admin/orders/${created.id}/confirm`, {});
      await t.services.dispatcher.runOnce();
      const got = receiver.received.find((r) => r.url === '/hook' && r.body.toString().includes(created.id));
      assert.ok(got, 'the receiver got the webhook');
      const header = got.headers['x-api-key'];
      assert.equal(typeof header, 'string');
      assert.equal(verifyWebhook(got.body, header as string, m.apiKey), true);
      assert.equal(verifyWebhook(got.body.toString('utf8'), header as string, m.apiKey), true);
      const changed = Buffer.from(got.body);
      changed[changed.length - 2] = (changed[changed.length - 2] ?? 0) ^ 1;
      assert.equal(verifyWebhook(changed, header as string, m.apiKey), false);
      assert.equal(verifyWebhook(got.body, header as string, other.apiKey), false);
      assert.equal(verifyWebhook(got.body, undefined, m.apiKey), false);
      const event = JSON.parse(got.body.toString('utf8')) as WebhookEvent;
      assert.deepEqual(
        [event.id, event.status, event.amountAfterFee],
        [created.id, 'success', created.amountAfterFee],
      );
    });
  });

  describe('429 back-off against the real rate limiter', () => {
    let limited: TestApp;
    let limitedUrl: string;
    before(async () => {
      limited = await startTestApp({ config: { rateLimits: true } });
      await limited.app.listen({ host: '127.0.0.1', port: 0 });
      limitedUrl = baseUrlOf(limited);
    });
    after(() => limited?.close());

    it('without retries, a burst over 6 per second gets TOO_MANY_REQUESTS with Retry-After', async () => {
      const merchant = await createMerchant(limited.app);
      const noRetry = createMerchantClient({
        baseUrl: limitedUrl,
        merchantId: merchant.id,
        apiKey: merchant.apiKey,
        maxRetries: 0,
      });
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => noRetry.listBanks()));
      const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      assert.ok(rejected.length >= 1, 'some requests were limited');
      for (const e of rejected) {
        assert.ok(e instanceof MerchantApiError, String(e));
        assert.deepEqual([e.code, e.status], ['TOO_MANY_REQUESTS', 429]);
        assert.ok(e.retryAfterMs !== undefined && e.retryAfterMs >= 1000, String(e.retryAfterMs));
      }
    });

    it('with retries, every call of the burst succeeds after waiting at least Retry-After', async () => {
      const merchant = await createMerchant(limited.app);
      const delays: number[] = [];
      const retrying = createMerchantClient({
        baseUrl: limitedUrl,
        merchantId: merchant.id,
        apiKey: merchant.apiKey,
        sleep: (ms) => {
          delays.push(ms);
          return new Promise((resolve) => setTimeout(resolve, ms));
        },
      });
      const balances = await Promise.all(Array.from({ length: 10 }, () => retrying.getBalance()));
      assert.ok(balances.every((b) => b.merchant_id === merchant.id && b.balance === 0));
      assert.ok(delays.length >= 1, 'some calls were retried');
      assert.ok(
        delays.every((d) => d >= 1000 && d <= 30_000),
        JSON.stringify(delays),
      );
    });
  });

  describe('CLI (node --import tsx packages/sdk/src/cli.ts)', () => {
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const childEnv: NodeJS.ProcessEnv = {
        ...process.env,
        PAYMENT_ORDERS_URL: baseUrl,
        MERCHANT_ID: m.id,
        API_KEY: m.apiKey,
        ...env,
      };
      delete childEnv.NODE_TEST_CONTEXT;
      try {
        const { stdout, stderr } = await execFileAsync(process.execPath, ['--import', 'tsx', CLI, ...args], {
          cwd: ROOT,
          env: childEnv,
          timeout: 60_000,
        });
        return { code: 0, stdout, stderr };
      } catch (err) {
        const e = err as { code?: number; stdout?: string; stderr?: string };
        return { code: Number(e.code), stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      }
    };

    it('order <id>: prints the order as JSON', async () => {
      const ext = `cli-${randomUUID()}`;
      const created = await sdk.createOrder({ amount: uniqueAmount(), type: 'sim', order_id: ext });
      const res = await run(['order', ext]);
      assert.equal(res.code, 0, res.stderr);
      const printed = JSON.parse(res.stdout) as OrderInfo;
      assert.deepEqual([printed.id, printed.order_id, printed.status], [created.id, ext, 'pending']);
    });

    it('create-order, balance and upload-receipt --url through the CLI', async () => {
      const ext = `cli-${randomUUID()}`;
      const amount = uniqueAmount();
      const made = await run([
        'create-order',
        '--amount',
        String(amount),
        '--type',
        'card',
        '--order-id',
        ext,
      ]);
      assert.equal(made.code, 0, made.stderr);
      const created = JSON.parse(made.stdout);
      assert.deepEqual([created.payment_id, created.payment_details.amount], [ext, String(amount)]);
      const read = await sdk.getOrder(ext);
      assert.equal(read.type, 'card');
      const balance = await run(['balance']);
      assert.equal(balance.code, 0, balance.stderr);
      assert.deepEqual(JSON.parse(balance.stdout), await sdk.getBalance());
      const uploaded = await run([
        'upload-receipt',
        '--order-id',
        ext,
        '--url',
        `${receiver.url}/receipt.png`,
      ]);
      assert.equal(uploaded.code, 0, uploaded.stderr);
      assert.deepEqual(JSON.parse(uploaded.stdout), {
        success: true,
        purchaseId: ext,
        internalId: created.id,
      });
    });

    it('an unknown order exits 1 with the code on stderr; a wrong key is INVALID_API_KEY', async () => {
      const missing = await run(['order', `nope-${randomUUID()}`]);
      assert.equal(missing.code, 1);
      assert.equal(missing.stdout, '');
      assert.deepEqual(JSON.parse(missing.stderr), { error: 'ORDER_NOT_FOUND', status: 404, details: [] });
      const wrong = await run(['balance'], { API_KEY: 'not-a-key' });
      assert.equal(wrong.code, 1);
      assert.equal(JSON.parse(wrong.stderr).error, 'INVALID_API_KEY');
    });
  });
});
