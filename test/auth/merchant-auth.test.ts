// One authentication suite for every merchant endpoint (docs/api.md "Authentication" and "Errors";
// docs/decisions.md sections 2-4). The table ENDPOINTS lists the endpoints; each gets the same cases.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  addRequisite,
  admin,
  createMerchant,
  createOrder,
  merchantRequest,
  type SignedOptions,
  sign,
  type TestMerchant,
  uniqueAmount,
} from '../helpers/merchant-client.js';

/** A merchant of its own and one of its orders (for GET /merchant/order/{id}). */
interface Ctx {
  merchant: TestMerchant;
  orderId: string;
}

/** `merchantId`: undefined = the caller's own id; null = left out; a string = that id. */
type MerchantIdArg = string | null | undefined;

interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  url(c: Ctx, merchantId?: MerchantIdArg): string;
  body?(c: Ctx, merchantId?: MerchantIdArg): Record<string, unknown>;
  /** Where the endpoint takes `merchant_id`, if it does. */
  merchantIdIn?: 'body' | 'path' | 'query';
  /** True when leaving `merchant_id` out is a request of its own (not another route). */
  merchantIdOptional?: boolean;
}

const idOf = (c: Ctx, id: MerchantIdArg) => (id === undefined ? c.merchant.id : id);

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /merchant/createOrder',
    method: 'POST',
    url: () => '/merchant/createOrder',
    body: (c, id) => {
      const m = idOf(c, id);
      return { ...(m === null ? {} : { merchant_id: m }), amount: uniqueAmount(), type: 'sim' };
    },
    merchantIdIn: 'body',
    merchantIdOptional: true,
  },
  { name: 'GET /merchant/order/{id}', method: 'GET', url: (c) => `/merchant/order/${c.orderId}` },
  {
    name: 'GET /merchant/orders',
    method: 'GET',
    url: (c, id) => {
      const m = idOf(c, id);
      return m === null ? '/merchant/orders' : `/merchant/orders?merchant_id=${encodeURIComponent(m)}`;
    },
    merchantIdIn: 'query',
    merchantIdOptional: true,
  },
  {
    name: 'GET /merchant/balance/{merchant_id}',
    method: 'GET',
    url: (c, id) => `/merchant/balance/${encodeURIComponent(idOf(c, id) ?? '')}`,
    merchantIdIn: 'path',
  },
  { name: 'GET /merchant/banks', method: 'GET', url: () => '/merchant/banks' },
];

/** `\uXXXX`-escapes every non-ASCII character (how ASCII-only JSON signers write it). */
const escapeNonAscii = (s: string) =>
  s.replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe('merchant authentication (every merchant endpoint)', () => {
  let t: TestApp;
  let other: TestMerchant;
  /** Every API key seen in this file: no answer may contain one. */
  const keys = new Set<string>();

  before(async () => {
    t = await startTestApp();
    await addRequisite(t.app);
    other = await createMerchant(t.app);
    keys.add(other.apiKey);
  });
  after(() => t.close());

  /** Checks what every answer must carry: an x-request-id, and no API key anywhere. */
  function checked(res: LightMyRequestResponse): LightMyRequestResponse {
    const rid = res.headers['x-request-id'];
    assert.ok(typeof rid === 'string' && rid.length > 0, `no x-request-id: ${res.statusCode} ${res.body}`);
    const headers = JSON.stringify(res.headers);
    for (const key of keys) {
      assert.ok(!res.body.includes(key) && !headers.includes(key), `API key in the answer: ${res.body}`);
    }
    return res;
  }

  async function newCtx(): Promise<Ctx> {
    const merchant = await createMerchant(t.app, { order_ttl_seconds: 3 * 86_400 });
    keys.add(merchant.apiKey);
    const created = await createOrder(t.app, merchant);
    assert.equal(created.statusCode, 200, created.body);
    return { merchant, orderId: created.json().id };
  }

  /** A signed request to the endpoint (options override what is sent and signed). */
  async function call(
    ep: Endpoint,
    c: Ctx,
    options: SignedOptions & { merchantId?: MerchantIdArg; as?: TestMerchant } = {},
  ) {
    const { merchantId, as, ...rest } = options;
    const body = ep.body?.(c, merchantId);
    return checked(
      await merchantRequest(t.app, as ?? c.merchant, ep.url(c, merchantId), {
        method: ep.method,
        ...(body === undefined ? {} : { body }),
        ...rest,
      }),
    );
  }

  /**
   * A request with exactly the given auth headers (a valid body for POST); `headers` may be built from
   * the text a correct signature covers (the body sent, '' for GET).
   */
  async function callWithHeaders(
    ep: Endpoint,
    c: Ctx,
    headers: Record<string, string> | ((signedText: string) => Record<string, string>),
  ) {
    const body = ep.body?.(c);
    const text = body ? JSON.stringify(body) : '';
    const auth = typeof headers === 'function' ? headers(text) : headers;
    return checked(
      await t.app.inject({
        method: ep.method,
        url: ep.url(c),
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...auth },
        ...(body ? { payload: text } : {}),
      }),
    );
  }

  function expectError(res: LightMyRequestResponse, status: number, message: string) {
    assert.equal(res.statusCode, status, res.body);
    assert.deepEqual(res.json(), { success: false, ok: false, status, message }, res.body);
  }

  function expectAccepted(res: LightMyRequestResponse) {
    assert.notEqual(res.statusCode, 401, res.body);
    assert.notEqual(res.statusCode, 403, res.body);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.ok(body.ok === true || body.success === true, res.body);
  }

  for (const ep of ENDPOINTS) {
    describe(ep.name, () => {
      let c: Ctx;
      before(async () => {
        c = await newCtx();
      });

      it('accepts a correctly signed request', async () => {
        expectAccepted(await call(ep, c));
      });

      it('no auth headers -> 401 INVALID_API_KEY', async () => {
        expectError(await callWithHeaders(ep, c, {}), 401, 'INVALID_API_KEY');
      });

      it('only client-api-key -> 401 INVALID_API_KEY', async () => {
        expectError(
          await callWithHeaders(ep, c, { 'client-api-key': c.merchant.apiKey }),
          401,
          'INVALID_API_KEY',
        );
      });

      it('only x-api-key -> 401 INVALID_API_KEY', async () => {
        const headers = (text: string) => ({ 'x-api-key': sign(c.merchant.apiKey, text) });
        expectError(await callWithHeaders(ep, c, headers), 401, 'INVALID_API_KEY');
      });

      it('empty header values -> 401 INVALID_API_KEY', async () => {
        const headers = { 'client-api-key': '', 'x-api-key': '' };
        expectError(await callWithHeaders(ep, c, headers), 401, 'INVALID_API_KEY');
      });

      it('unknown client-api-key (self-consistent signature) -> 401 INVALID_API_KEY', async () => {
        const unknown = randomBytes(32).toString('hex');
        keys.add(unknown);
        const headers = (text: string) => ({ 'client-api-key': unknown, 'x-api-key': sign(unknown, text) });
        expectError(await callWithHeaders(ep, c, headers), 401, 'INVALID_API_KEY');
      });

      it('wrong signature -> 401 INVALID_API_KEY', async () => {
        const wrong = sign(c.merchant.apiKey, 'something else');
        expectError(await call(ep, c, { headers: { 'x-api-key': wrong } }), 401, 'INVALID_API_KEY');
        expectError(await call(ep, c, { headers: { 'x-api-key': 'zz' } }), 401, 'INVALID_API_KEY');
      });

      it("another merchant's key signing with this merchant's client-api-key -> 401", async () => {
        const headers = (text: string) => ({
          'client-api-key': c.merchant.apiKey,
          'x-api-key': sign(other.apiKey, text),
        });
        expectError(await callWithHeaders(ep, c, headers), 401, 'INVALID_API_KEY');
        // Control: the same construction with the right key is accepted.
        const right = (text: string) => ({
          'client-api-key': c.merchant.apiKey,
          'x-api-key': sign(c.merchant.apiKey, text),
        });
        expectAccepted(await callWithHeaders(ep, c, right));
      });

      if (ep.method === 'POST') {
        it('body changed after signing -> 401 INVALID_API_KEY', async () => {
          const body = ep.body?.(c) ?? {};
          const changed = JSON.stringify({ ...body, amount: Number(body.amount) + 10 });
          expectError(
            await call(ep, c, { raw: changed, signed: JSON.stringify(body) }),
            401,
            'INVALID_API_KEY',
          );
        });

        it('pretty-printed JSON signed over its compact form -> accepted', async () => {
          const body = ep.body?.(c) ?? {};
          const res = await call(ep, c, {
            raw: JSON.stringify(body, null, 2),
            signed: JSON.stringify(body),
          });
          expectAccepted(res);
        });

        it('Cyrillic sent as UTF-8, signed over the \\uXXXX-escaped compact JSON -> accepted', async () => {
          const body = { ...ep.body?.(c), comment: 'Привет' };
          const raw = JSON.stringify(body);
          const res = await call(ep, c, { raw, signed: escapeNonAscii(raw) });
          expectAccepted(res);
          const read = await merchantRequest(t.app, c.merchant, `/merchant/order/${res.json().id}`);
          assert.equal(read.statusCode, 200, read.body);
          assert.equal(read.json().comment, 'Привет', read.body);
        });

        it('Cyrillic sent \\uXXXX-escaped, signed over the UTF-8 compact JSON -> accepted', async () => {
          const compact = JSON.stringify({ ...ep.body?.(c), comment: 'Привет' });
          expectAccepted(await call(ep, c, { raw: escapeNonAscii(compact), signed: compact }));
        });

        it('invalid JSON, valid key, wrong signature -> 401 (auth before parsing)', async () => {
          const raw = '{"merchant_id": "x", amount';
          const res = await call(ep, c, { raw, signed: `${raw}!` });
          expectError(res, 401, 'INVALID_API_KEY');
        });

        it('invalid JSON with an unknown key -> 401', async () => {
          const unknown = randomBytes(32).toString('hex');
          keys.add(unknown);
          const res = await call(ep, c, { raw: '{oops', as: { id: c.merchant.id, apiKey: unknown } });
          expectError(res, 401, 'INVALID_API_KEY');
        });

        it('invalid JSON signed over its raw bytes -> 400 INVALID_JSON', async () => {
          expectError(await call(ep, c, { raw: '{"merchant_id": "x", amount' }), 400, 'INVALID_JSON');
        });

        it('JSON that is not an object (array, null, number, string) -> 400 INVALID_JSON', async () => {
          for (const raw of [`[${JSON.stringify(ep.body?.(c))}]`, '[]', 'null', '42', '"text"']) {
            expectError(await call(ep, c, { raw }), 400, 'INVALID_JSON');
          }
        });
      } else {
        it('GET signed over a non-empty body -> 401 INVALID_API_KEY', async () => {
          expectError(await call(ep, c, { signed: '{}' }), 401, 'INVALID_API_KEY');
          expectError(await call(ep, c, { signed: ' ' }), 401, 'INVALID_API_KEY');
        });
      }

      it('rotated key: the old key is refused at once, the new key works', async () => {
        const mine = await newCtx();
        expectAccepted(await call(ep, mine));
        const rotated = await admin<{ api_key: string }>(
          t.app,
          'POST',
          `/admin/merchants/${mine.merchant.id}/api-keys`,
        );
        keys.add(rotated.api_key);
        assert.notEqual(rotated.api_key, mine.merchant.apiKey);
        expectError(await call(ep, mine), 401, 'INVALID_API_KEY');
        const renewed = { ...mine, merchant: { id: mine.merchant.id, apiKey: rotated.api_key } };
        expectAccepted(await call(ep, renewed));
      });

      it('disabled merchant with a correct signature -> 403 DISABLED; re-enabled -> accepted', async () => {
        const mine = await newCtx();
        expectAccepted(await call(ep, mine));
        await admin(t.app, 'PATCH', `/admin/merchants/${mine.merchant.id}`, { enabled: false });
        expectError(await call(ep, mine), 403, 'DISABLED');
        const wrong = { 'x-api-key': sign(mine.merchant.apiKey, 'x') };
        expectError(await call(ep, mine, { headers: wrong }), 401, 'INVALID_API_KEY');
        await admin(t.app, 'PATCH', `/admin/merchants/${mine.merchant.id}`, { enabled: true });
        expectAccepted(await call(ep, mine));
      });

      if (ep.merchantIdIn) {
        it(`merchant_id of another merchant (${ep.merchantIdIn}) -> 400 INVALID_MERCHANT_ID`, async () => {
          expectError(await call(ep, c, { merchantId: other.id }), 400, 'INVALID_MERCHANT_ID');
          expectError(await call(ep, c, { merchantId: 'm_no_such_one' }), 400, 'INVALID_MERCHANT_ID');
        });
      }
      if (ep.merchantIdOptional) {
        it(`missing merchant_id (${ep.merchantIdIn}) -> 400 INVALID_MERCHANT_ID`, async () => {
          expectError(await call(ep, c, { merchantId: null }), 400, 'INVALID_MERCHANT_ID');
        });
      }

      it('echoes a valid x-request-id, on success and on 401', async () => {
        const ok = await call(ep, c, { headers: { 'x-request-id': 'req-ok.1:a_B' } });
        expectAccepted(ok);
        assert.equal(ok.headers['x-request-id'], 'req-ok.1:a_B', ok.body);
        const denied = await call(ep, c, { headers: { 'x-request-id': 'req-denied-2', 'x-api-key': 'bad' } });
        expectError(denied, 401, 'INVALID_API_KEY');
        assert.equal(denied.headers['x-request-id'], 'req-denied-2', denied.body);
      });

      it('replaces an invalid x-request-id with its own', async () => {
        for (const given of ['has spaces in it', 'x'.repeat(65), 'semi;colon']) {
          const res = await call(ep, c, { headers: { 'x-request-id': given } });
          expectAccepted(res);
          assert.match(String(res.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-f-]{27}$/, res.body);
        }
      });

      it('no answer contains the API key', async () => {
        const answers = [
          await call(ep, c),
          await call(ep, c, { headers: { 'x-api-key': 'bad' } }),
          await callWithHeaders(ep, c, { 'client-api-key': c.merchant.apiKey }),
        ];
        for (const res of answers) assert.ok(!res.body.includes(c.merchant.apiKey), res.body);
      });
    });
  }

  it('an unknown merchant route answers 404 NOT_FOUND with an x-request-id', async () => {
    const c = await newCtx();
    const res = checked(await merchantRequest(t.app, c.merchant, '/merchant/no-such-endpoint'));
    expectError(res, 404, 'NOT_FOUND');
  });
});
