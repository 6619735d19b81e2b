import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createMerchant, merchantRequest, type TestMerchant } from '../helpers/merchant-client.js';

describe('TRUST_PROXY: the client IP comes from the proxy header only when trusted', () => {
  let trusting: TestApp;
  let direct: TestApp;
  let merchant: TestMerchant;
  before(async () => {
    trusting = await startTestApp({ config: { rateLimits: true, trustProxy: true } });
    direct = await startTestApp({ config: { rateLimits: true, trustProxy: false } });
    merchant = await createMerchant(trusting.app);
  });
  after(async () => {
    await trusting.close();
    await direct.close();
  });

  const banks = (t: TestApp, ip: string) =>
    merchantRequest(t.app, merchant, '/merchant/banks', { headers: { 'x-forwarded-for': ip } }).then(
      (r) => r.statusCode,
    );

  it('behind a trusted proxy each client IP has its own counter', async () => {
    for (let i = 0; i < 6; i++) assert.equal(await banks(trusting, '203.0.113.7'), 200);
    assert.equal(await banks(trusting, '203.0.113.7'), 429);
    assert.equal(await banks(trusting, '198.51.100.9'), 200, 'another client IP is not limited');
  });

  it('without TRUST_PROXY a forged header does not buy a fresh counter', async () => {
    for (let i = 0; i < 6; i++) assert.equal(await banks(direct, `192.0.2.${i}`), 200);
    assert.equal(await banks(direct, '192.0.2.200'), 429);
  });
});
