import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkDeviceSignature, deviceSignature } from './device-signature.js';

// The body and headers exactly as SMS Gateway for Android sends an `sms:received` event
// (capcom6/android-sms-gateway: WebHookEventDTO {id, webhookId, event, deviceId, payload};
// SmsEventPayload.SmsReceived; dates "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"; PayloadSingingPlugin).
const KEY = 'holder-signing-key-4f1c';
const BODY = Buffer.from(
  JSON.stringify({
    id: 'Ey6ECgOkVVFjz3CL48B8C',
    webhookId: 'LreFUt-Z3sSq0JufY9uWB',
    event: 'sms:received',
    deviceId: 'ffffffffceb0b1db00000018d8a3e4ad',
    payload: {
      messageId: 'abc',
      message: 'СЧЁТ1234 10:15 Перевод 1500р от Анна К. Баланс: 2500р',
      sender: '900',
      phoneNumber: '900',
      simNumber: 1,
      receivedAt: '2026-11-24T10:15:07.000+03:00',
    },
  }),
);
const NOW = 1_795_500_000;

describe('device signatures (docs/decisions.md section 24)', () => {
  it('accepts HMAC-SHA256(key, body + timestamp) in hex, as the app computes it', () => {
    const ts = String(NOW - 10);
    const signature = createHmac('sha256', KEY)
      .update(`${BODY.toString('utf8')}${ts}`, 'utf8')
      .digest('hex');
    assert.equal(deviceSignature(KEY, BODY, ts), signature);
    assert.equal(
      checkDeviceSignature({ key: KEY, body: BODY, timestamp: ts, signature, nowSeconds: NOW }),
      'ok',
    );
    assert.equal(
      checkDeviceSignature({
        key: KEY,
        body: BODY,
        timestamp: ts,
        signature: signature.toUpperCase(),
        nowSeconds: NOW,
      }),
      'ok',
    );
  });

  it('refuses a changed body, another key, a changed timestamp', () => {
    const ts = String(NOW);
    const signature = deviceSignature(KEY, BODY, ts);
    const changed = Buffer.from(BODY.toString('utf8').replace('1500р', '15000р'));
    assert.equal(
      checkDeviceSignature({ key: KEY, body: changed, timestamp: ts, signature, nowSeconds: NOW }),
      'bad',
    );
    assert.equal(
      checkDeviceSignature({ key: `${KEY}x`, body: BODY, timestamp: ts, signature, nowSeconds: NOW }),
      'bad',
    );
    assert.equal(
      checkDeviceSignature({ key: KEY, body: BODY, timestamp: String(NOW - 1), signature, nowSeconds: NOW }),
      'bad',
    );
  });

  it('refuses timestamps outside +-300 s, and missing or malformed headers', () => {
    for (const offset of [-301, 301, 86_400]) {
      const ts = String(NOW + offset);
      const signature = deviceSignature(KEY, BODY, ts);
      assert.equal(
        checkDeviceSignature({ key: KEY, body: BODY, timestamp: ts, signature, nowSeconds: NOW }),
        'stale',
      );
    }
    for (const offset of [-300, 300]) {
      const ts = String(NOW + offset);
      const signature = deviceSignature(KEY, BODY, ts);
      assert.equal(
        checkDeviceSignature({ key: KEY, body: BODY, timestamp: ts, signature, nowSeconds: NOW }),
        'ok',
      );
    }
    const sig = deviceSignature(KEY, BODY, String(NOW));
    assert.equal(
      checkDeviceSignature({ key: KEY, body: BODY, timestamp: undefined, signature: sig, nowSeconds: NOW }),
      'missing',
    );
    assert.equal(
      checkDeviceSignature({
        key: KEY,
        body: BODY,
        timestamp: String(NOW),
        signature: undefined,
        nowSeconds: NOW,
      }),
      'missing',
    );
    assert.equal(
      checkDeviceSignature({ key: KEY, body: BODY, timestamp: '17955e5', signature: sig, nowSeconds: NOW }),
      'malformed',
    );
    assert.equal(
      checkDeviceSignature({
        key: KEY,
        body: BODY,
        timestamp: String(NOW),
        signature: 'zz',
        nowSeconds: NOW,
      }),
      'malformed',
    );
  });
});
