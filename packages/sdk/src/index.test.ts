// Unit tests of the merchant SDK: signing, webhook verification, 429 back-off, error mapping and the
// exact requests each call sends (merchant-api.md Authentication, Errors, Limits; decisions.md 2-4).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BACKOFF_CAP_MS,
  backoffDelay,
  createMerchantClient,
  type FetchLike,
  MerchantApiError,
  parseRetryAfter,
  sign,
  verifyWebhook,
} from './index.js';

// Vectors computed outside Node: printf '%s' 'test-key|<body>' | sha256sum
const KEY = 'test-key';
const EMPTY_SIG = '3f1df72d4540de1512e218d018a1c76d81c29ccae0cf525fc30f6e86d5423e76';
const ORDER_BODY = '{"merchant_id":"shop1","amount":1000,"type":"sim"}';
const ORDER_SIG = '6279e0b62bea2fc3b5ce19085af77d59deee4a60aee3e8c6df4b871101249239';
const UTF8_BODY = '{"comment":"Привет €"}';
const UTF8_SIG = '4c558eb94f4f3b95218336dcc987c1c46736940b2dd90bc88e408bd1fdfdbbfc';

interface Recorded {
  url: string;
  init: RequestInit;
  headers: Record<string, string>;
}

type Answer = { status: number; body?: unknown; text?: string; headers?: Record<string, string> };

/** A fetch that records every call and answers from `answers` (the last one repeats). */
function fakeFetch(answers: Answer[] | ((index: number) => Answer)) {
  const calls: Recorded[] = [];
  const fn: FetchLike = async (url, init) => {
    calls.push({ url, init, headers: { ...(init.headers as Record<string, string>) } });
    const i = calls.length - 1;
    const a =
      typeof answers === 'function' ? answers(i) : (answers[Math.min(i, answers.length - 1)] as Answer);
    const text = a.text ?? (a.body === undefined ? '' : JSON.stringify(a.body));
    return new Response(text, {
      status: a.status,
      headers: { 'content-type': a.text === undefined ? 'application/json' : 'text/html', ...a.headers },
    });
  };
  return { fn, calls };
}

/** A sleep that records the delays and returns at once. */
function fakeSleep() {
  const delays: number[] = [];
  return { delays, fn: async (ms: number) => void delays.push(ms) };
}

const TOO_MANY = {
  status: 429,
  body: {
    ok: false,
    success: false,
    status: 429,
    message: 'TOO_MANY_REQUESTS',
    error: 'Too many requests, slow down.',
  },
};
const BALANCE = {
  merchant_id: 'shop1',
  balance: 975,
  reserved: 0,
  available: 975,
  currency: 'RUB',
  usdtBalance: 0,
  allowUsdt: false,
  balances: [{ currency: 'RUB', balance: 975, reserved: 0, available: 975 }],
};
const BALANCE_OK = { status: 200, body: { success: true, ok: true, data: BALANCE, ...BALANCE } };

function client(
  fetch: FetchLike,
  extra: { sleep?: (ms: number) => Promise<void>; maxRetries?: number } = {},
) {
  return createMerchantClient({
    baseUrl: 'https://pay.example.test/',
    merchantId: 'shop1',
    apiKey: KEY,
    fetch,
    sleep: extra.sleep ?? (async () => assert.fail('no sleep expected')),
    ...(extra.maxRetries === undefined ? {} : { maxRetries: extra.maxRetries }),
  });
}

describe('sign', () => {
  it('matches vectors computed with sha256sum', () => {
    assert.equal(sign(KEY, ''), EMPTY_SIG);
    assert.equal(sign(KEY), EMPTY_SIG);
    assert.equal(sign(KEY, ORDER_BODY), ORDER_SIG);
    assert.equal(sign(KEY, UTF8_BODY), UTF8_SIG);
    assert.equal(sign('abc', ''), '39674985912ef8498ad99f2df9524c7ad24a9785f1cab66cd50e0c1f82988e25');
  });
  it('a string and its UTF-8 bytes sign the same', () => {
    assert.equal(sign(KEY, new TextEncoder().encode(UTF8_BODY)), UTF8_SIG);
    assert.equal(sign(KEY, Buffer.from(ORDER_BODY)), ORDER_SIG);
  });
  it('is lowercase hex of 64 characters and depends on key and body', () => {
    assert.match(sign(KEY, 'x'), /^[0-9a-f]{64}$/);
    assert.notEqual(sign(KEY, 'x'), sign(KEY, 'y'));
    assert.notEqual(sign(KEY, 'x'), sign(`${KEY}!`, 'x'));
  });
});

describe('verifyWebhook', () => {
  const raw =
    '{"id":"lux1","order_id":"o-1","type":"sim","amount":"1000","currency":"RUB","status":"success"}';
  const good = sign(KEY, raw);

  it('true for the signature of the exact bytes, as a string or as bytes', () => {
    assert.equal(verifyWebhook(raw, good, KEY), true);
    assert.equal(verifyWebhook(Buffer.from(raw), good, KEY), true);
    assert.equal(verifyWebhook(new TextEncoder().encode(UTF8_BODY), UTF8_SIG, KEY), true);
  });
  it('accepts uppercase hex and surrounding whitespace of the header', () => {
    assert.equal(verifyWebhook(raw, good.toUpperCase(), KEY), true);
    assert.equal(verifyWebhook(raw, ` ${good} `, KEY), true);
  });
  it('false for a changed byte, a re-serialised body or another key', () => {
    assert.equal(verifyWebhook(raw.replace('1000', '1001'), good, KEY), false);
    assert.equal(verifyWebhook(JSON.stringify(JSON.parse(raw), null, 1), good, KEY), false);
    assert.equal(verifyWebhook(raw, good, 'other-key'), false);
    const flipped = (good[0] === '0' ? '1' : '0') + good.slice(1);
    assert.equal(verifyWebhook(raw, flipped, KEY), false);
  });
  it('false (never a throw) for a missing, empty or wrong-length header', () => {
    assert.equal(verifyWebhook(raw, undefined, KEY), false);
    assert.equal(verifyWebhook(raw, null, KEY), false);
    assert.equal(verifyWebhook(raw, '', KEY), false);
    assert.equal(verifyWebhook(raw, good.slice(0, 62), KEY), false);
    assert.equal(verifyWebhook(raw, good.slice(0, 63), KEY), false);
    assert.equal(verifyWebhook(raw, `${good}00`, KEY), false);
    assert.equal(verifyWebhook(raw, good.repeat(2), KEY), false);
  });
  it('false for the right signature followed by non-hex characters (Buffer.from would drop them)', () => {
    assert.equal(Buffer.from(`${good}zz`, 'hex').equals(Buffer.from(good, 'hex')), true);
    assert.equal(verifyWebhook(raw, `${good}zz`, KEY), false);
    assert.equal(verifyWebhook(raw, `${good.slice(0, 62)}zz`, KEY), false);
  });
});

describe('429 back-off', () => {
  it('429 three times then 200: waits 500, 1000, 2000 ms and returns the answer', async () => {
    const f = fakeFetch([TOO_MANY, TOO_MANY, TOO_MANY, BALANCE_OK]);
    const s = fakeSleep();
    const balance = await client(f.fn, { sleep: s.fn }).getBalance();
    assert.deepEqual(s.delays, [500, 1000, 2000]);
    assert.equal(f.calls.length, 4);
    assert.deepEqual(balance, BALANCE);
  });

  it('sleeps between attempts, never before the first nor after the last', async () => {
    const events: string[] = [];
    const f = fakeFetch((i) => {
      events.push(`fetch${i}`);
      return i < 2 ? TOO_MANY : BALANCE_OK;
    });
    await client(f.fn, { sleep: async (ms) => void events.push(`sleep${ms}`) }).getBalance();
    assert.deepEqual(events, ['fetch0', 'sleep500', 'fetch1', 'sleep1000', 'fetch2']);
  });

  it('a retried POST sends the same bytes with the same signature each time', async () => {
    const f = fakeFetch([TOO_MANY, TOO_MANY, { status: 200, body: { ok: true, id: 'lux1' } }]);
    const s = fakeSleep();
    await client(f.fn, { sleep: s.fn }).createOrder({ amount: 1000, type: 'sim' });
    assert.equal(f.calls.length, 3);
    for (const call of f.calls) {
      assert.equal(call.init.body, ORDER_BODY);
      assert.equal(call.headers['x-api-key'], ORDER_SIG);
    }
    assert.deepEqual(s.delays, [500, 1000]);
  });

  it('doubles up to the 30 s cap and stays there; gives up after maxRetries with TOO_MANY_REQUESTS', async () => {
    const f = fakeFetch([TOO_MANY]);
    const s = fakeSleep();
    const err = await client(f.fn, { sleep: s.fn, maxRetries: 10 })
      .listBanks()
      .then(
        () => assert.fail('expected a throw'),
        (e: unknown) => e,
      );
    assert.deepEqual(s.delays, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
    assert.equal(f.calls.length, 11);
    assert.ok(err instanceof MerchantApiError);
    assert.equal(err.code, 'TOO_MANY_REQUESTS');
    assert.equal(err.status, 429);
  });

  it('defaults to 5 retries (6 attempts)', async () => {
    const f = fakeFetch([TOO_MANY]);
    const s = fakeSleep();
    await assert.rejects(client(f.fn, { sleep: s.fn }).listBanks(), { code: 'TOO_MANY_REQUESTS' });
    assert.deepEqual(s.delays, [500, 1000, 2000, 4000, 8000]);
    assert.equal(f.calls.length, 6);
  });

  it('maxRetries 0: one attempt, no sleep', async () => {
    const f = fakeFetch([TOO_MANY, BALANCE_OK]);
    await assert.rejects(client(f.fn, { maxRetries: 0 }).getBalance(), {
      code: 'TOO_MANY_REQUESTS',
      status: 429,
    });
    assert.equal(f.calls.length, 1);
  });

  it('a longer Retry-After wins, a shorter one does not shorten the step, both capped at 30 s', async () => {
    const f = fakeFetch([
      { ...TOO_MANY, headers: { 'retry-after': '3' } },
      { ...TOO_MANY, headers: { 'retry-after': '1' } },
      { ...TOO_MANY, headers: { 'retry-after': '120' } },
      { ...TOO_MANY, headers: { 'retry-after': '0' } },
      BALANCE_OK,
    ]);
    const s = fakeSleep();
    await client(f.fn, { sleep: s.fn }).getBalance();
    assert.deepEqual(s.delays, [3000, 1000, 30000, 4000]);
  });

  it('the schedule as a function: never below 500 ms, never above 30 s', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 50, 1000].map((n) => backoffDelay(n)),
      [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000],
    );
    assert.equal(backoffDelay(0, 0), 500);
    assert.equal(backoffDelay(-3), 500);
    assert.equal(backoffDelay(0, 10_000), 10_000);
    assert.equal(backoffDelay(2, 10 * 60_000), BACKOFF_CAP_MS);
  });

  it('Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('7', now), 7000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
  });

  it('other errors are not retried', async () => {
    for (const status of [400, 401, 409, 500, 503]) {
      const f = fakeFetch([
        { status, body: { success: false, ok: false, status, message: 'X' } },
        BALANCE_OK,
      ]);
      await assert.rejects(client(f.fn).getBalance(), { code: 'X', status });
      assert.equal(f.calls.length, 1, `HTTP ${status}`);
    }
  });
});

describe('errors', () => {
  it('maps the envelope to MerchantApiError with code, status, details and the parsed body', async () => {
    const body = {
      success: false,
      ok: false,
      status: 400,
      message: 'VALIDATION_ERROR',
      details: [{ field: 'comment', problem: 'must NOT have more than 500 characters' }],
    };
    const f = fakeFetch([{ status: 400, body }]);
    const err = await client(f.fn)
      .createOrder({ amount: 1, type: 'sim', comment: 'x'.repeat(501) })
      .catch((e: unknown) => e);
    assert.ok(err instanceof MerchantApiError);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'MerchantApiError');
    assert.equal(err.code, 'VALIDATION_ERROR');
    assert.equal(err.status, 400);
    assert.deepEqual(err.details, body.details);
    assert.deepEqual(err.body, body);
    assert.match(err.message, /VALIDATION_ERROR.*400/);
  });

  it('codes without details get an empty details list', async () => {
    const f = fakeFetch([
      { status: 404, body: { success: false, ok: false, status: 404, message: 'ORDER_NOT_FOUND' } },
    ]);
    await assert.rejects(client(f.fn).getOrder('nope'), (e: unknown) => {
      assert.ok(e instanceof MerchantApiError);
      assert.deepEqual([e.code, e.status, e.details], ['ORDER_NOT_FOUND', 404, []]);
      return true;
    });
  });

  it('a non-JSON answer is HTTP_<status> with the text as body', async () => {
    const f = fakeFetch([{ status: 502, text: '<html>Bad gateway</html>' }]);
    await assert.rejects(client(f.fn).listBanks(), (e: unknown) => {
      assert.ok(e instanceof MerchantApiError);
      assert.deepEqual([e.code, e.status, e.body], ['HTTP_502', 502, '<html>Bad gateway</html>']);
      return true;
    });
  });

  it('a 200 that is not a JSON object is INVALID_RESPONSE', async () => {
    const f = fakeFetch([{ status: 200, text: 'ok' }]);
    await assert.rejects(client(f.fn).listBanks(), { code: 'INVALID_RESPONSE', status: 200 });
  });

  it('no answer is NETWORK_ERROR with status 0 and the cause', async () => {
    const cause = new TypeError('fetch failed');
    const failing: FetchLike = async () => {
      throw cause;
    };
    await assert.rejects(client(failing).getBalance(), (e: unknown) => {
      assert.ok(e instanceof MerchantApiError);
      assert.deepEqual([e.code, e.status, e.cause], ['NETWORK_ERROR', 0, cause]);
      return true;
    });
  });

  it('an aborted attempt (timeout) is TIMEOUT', async () => {
    const failing: FetchLike = async () => {
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    };
    await assert.rejects(client(failing).getBalance(), { code: 'TIMEOUT', status: 0 });
  });

  it('options are required', () => {
    assert.throws(() => createMerchantClient({ baseUrl: '', merchantId: 'm', apiKey: 'k' }), TypeError);
    assert.throws(
      () => createMerchantClient({ baseUrl: 'http://x', merchantId: '', apiKey: 'k' }),
      TypeError,
    );
    assert.throws(
      () => createMerchantClient({ baseUrl: 'http://x', merchantId: 'm', apiKey: '' }),
      TypeError,
    );
  });
});

describe('requests', () => {
  const ok = (data: unknown) => ({ status: 200, body: { success: true, ok: true, data } });

  it('createOrder: compact JSON with merchant_id first, signed over exactly the bytes sent', async () => {
    const f = fakeFetch([{ status: 200, body: { ok: true, id: 'lux1', payment_id: 'lux1' } }]);
    const answer = await client(f.fn).createOrder({ amount: 1000, type: 'sim' });
    assert.equal(answer.id, 'lux1');
    const [call] = f.calls;
    assert.ok(call);
    assert.equal(call.url, 'https://pay.example.test/merchant/createOrder');
    assert.equal(call.init.method, 'POST');
    assert.equal(call.init.body, ORDER_BODY);
    assert.deepEqual(call.headers, {
      accept: 'application/json',
      'client-api-key': KEY,
      'x-api-key': ORDER_SIG,
      'content-type': 'application/json',
    });
  });

  it('createOrder PAYOUT and pool bodies keep the given fields', async () => {
    const f = fakeFetch([{ status: 200, body: { ok: true } }]);
    const c = client(f.fn);
    await c.createOrder({
      direction: 'PAYOUT',
      amount: 500,
      type: 'card',
      payout_details: { holderAccount: '2200123456789012', holderName: 'Ivan', methodName: 'Sberbank' },
    });
    await c.createOrder({ usePool: true, requisiteId: 'off-1', type: 'sim', currency: 'TRY' });
    assert.equal(
      f.calls[0]?.init.body,
      '{"merchant_id":"shop1","direction":"PAYOUT","amount":500,"type":"card","payout_details":{"holderAccount":"2200123456789012","holderName":"Ivan","methodName":"Sberbank"}}',
    );
    assert.equal(
      f.calls[1]?.init.body,
      '{"merchant_id":"shop1","usePool":true,"requisiteId":"off-1","type":"sim","currency":"TRY"}',
    );
    assert.equal(f.calls[1]?.headers['x-api-key'], sign(KEY, String(f.calls[1]?.init.body)));
  });

  it('GETs sign an empty body, send no body and return the data payload', async () => {
    const f = fakeFetch([BALANCE_OK]);
    assert.deepEqual(await client(f.fn).getBalance(), BALANCE);
    const [call] = f.calls;
    assert.equal(call?.url, 'https://pay.example.test/merchant/balance/shop1');
    assert.equal(call?.init.method, 'GET');
    assert.equal(call?.init.body, undefined);
    assert.equal(call?.headers['x-api-key'], EMPTY_SIG);
    assert.equal(call?.headers['content-type'], undefined);
  });

  it('paths: order id URL-encoded, banks, standards, pool; a base path prefix is kept', async () => {
    const f = fakeFetch([ok({ id: 'lux1' }), ok([{ code: 's', name: 'S' }]), ok([]), ok([])]);
    const c = createMerchantClient({
      baseUrl: 'http://127.0.0.1:9/api',
      merchantId: 'm 1',
      apiKey: KEY,
      fetch: f.fn,
    });
    assert.deepEqual(await c.getOrder('a b/ц?#'), { id: 'lux1' });
    assert.deepEqual(await c.listBanks(), [{ code: 's', name: 'S' }]);
    await c.bankStandards();
    await c.poolRequisites();
    assert.deepEqual(
      f.calls.map((x) => x.url),
      [
        'http://127.0.0.1:9/api/merchant/order/a%20b%2F%D1%86%3F%23',
        'http://127.0.0.1:9/api/merchant/banks',
        'http://127.0.0.1:9/api/merchant/bank-standards',
        'http://127.0.0.1:9/api/merchant/pool/requisites',
      ],
    );
    assert.ok(f.calls.every((x) => x.headers['x-api-key'] === EMPTY_SIG));
  });

  it('listOrders: merchant_id and the filters in the query; dates as UTC YYYY-MM-DD HH:MM:SS', async () => {
    const f = fakeFetch([ok({ total: 0, page: 2, size: 5, orders: [] })]);
    const page = await client(f.fn).listOrders({
      page: 2,
      size: 5,
      order_status: 'success',
      direction: 'PAYIN',
      start_date: new Date('2026-01-02T03:04:05.678Z'),
      end_date: '2026-01-03 00:00:00',
    });
    assert.deepEqual(page, { total: 0, page: 2, size: 5, orders: [] });
    const url = new URL(f.calls[0]?.url ?? '');
    assert.equal(url.pathname, '/merchant/orders');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      merchant_id: 'shop1',
      page: '2',
      size: '5',
      order_status: 'success',
      direction: 'PAYIN',
      start_date: '2026-01-02 03:04:05',
      end_date: '2026-01-03 00:00:00',
    });
  });

  it('uploadReceiptFile: multipart orderId + receipt file, signed as an empty body', async () => {
    const f = fakeFetch([{ status: 200, body: { success: true, purchaseId: 'o-1', internalId: 'lux1' } }]);
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 1, 2, 3]);
    const answer = await client(f.fn).uploadReceiptFile('o-1', bytes, 'r.pdf', 'application/pdf');
    assert.deepEqual(answer, { success: true, purchaseId: 'o-1', internalId: 'lux1' });
    const call = f.calls[0];
    assert.equal(call?.headers['x-api-key'], EMPTY_SIG);
    assert.equal(call?.headers['content-type'], undefined, 'fetch sets the multipart boundary itself');
    const form = call?.init.body;
    assert.ok(form instanceof FormData);
    assert.deepEqual([...form.keys()], ['orderId', 'receipt']);
    assert.equal(form.get('orderId'), 'o-1');
    const file = form.get('receipt');
    assert.ok(file instanceof Blob);
    assert.equal((file as File).name, 'r.pdf');
    assert.equal(file.type, 'application/pdf');
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);
  });

  it('uploadReceiptFile: a fresh form for each retried attempt', async () => {
    const f = fakeFetch([TOO_MANY, { status: 200, body: { success: true } }]);
    const s = fakeSleep();
    await client(f.fn, { sleep: s.fn }).uploadReceiptFile('o-1', new Blob(['x']), 'r.png');
    assert.equal(f.calls.length, 2);
    assert.notEqual(f.calls[0]?.init.body, f.calls[1]?.init.body);
    assert.ok(f.calls[1]?.init.body instanceof FormData);
  });

  it('uploadReceiptUrl: compact JSON orderId then receiptUrl, signed over it', async () => {
    const f = fakeFetch([{ status: 200, body: { success: true, purchaseId: 'o-1', internalId: 'lux1' } }]);
    await client(f.fn).uploadReceiptUrl('o-1', 'https://files.example/r.pdf');
    const body = '{"orderId":"o-1","receiptUrl":"https://files.example/r.pdf"}';
    assert.equal(f.calls[0]?.init.body, body);
    assert.equal(f.calls[0]?.headers['x-api-key'], sign(KEY, body));
    assert.equal(f.calls[0]?.headers['content-type'], 'application/json');
  });
});
