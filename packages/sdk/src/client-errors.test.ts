// Unit tests of the client's 429 back-off and error mapping (docs/api.md Errors, Limits;
// docs/decisions.md 2-3).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BACKOFF_CAP_MS,
  backoffDelay,
  createMerchantClient,
  type FetchLike,
  MerchantApiError,
  parseRetryAfter,
} from './index.js';
import {
  BALANCE,
  BALANCE_OK,
  client,
  fakeFetch,
  fakeSleep,
  ORDER_BODY,
  ORDER_SIG,
  TOO_MANY,
} from './test-doubles.js';

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
