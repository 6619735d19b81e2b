/**
 * The signature of device events (docs/decisions.md section 24), one verifier for SMS Gateway for Android
 * and the native batch endpoint: `X-Timestamp` is unix seconds and `X-Signature` the lower-case hex
 * HMAC-SHA256 of the raw body followed by the timestamp, keyed with the device's signing key.
 * Source: capcom6/android-sms-gateway, `rails/webhooks/plugins/PayloadSingingPlugin.kt`
 * (`content.text + timestamp`, HmacSHA256, hex) — the plugin signs each attempt when it is sent,
 * retries included, so a timestamp outside the window is refused without losing a retried message.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a signed timestamp may be from the server's clock, in seconds. */
export const SIGNATURE_WINDOW_SECONDS = 300;

/** Why a signed request is refused, or `ok`. */
export type SignatureCheck = 'ok' | 'missing' | 'malformed' | 'stale' | 'bad';

/** The hex signature of `body` + `timestamp` with `key` (what the app sends). */
export function deviceSignature(key: string, body: Buffer | string, timestamp: string): string {
  return createHmac('sha256', key).update(body).update(timestamp).digest('hex');
}

/**
 * Checks a device request's signature over its raw bytes. `nowSeconds` is the server's unix time.
 * Constant-time comparison; upper-case hex accepted. Never throws.
 */
export function checkDeviceSignature(input: {
  key: string;
  body: Buffer;
  timestamp: string | undefined;
  signature: string | undefined;
  nowSeconds: number;
  windowSeconds?: number;
}): SignatureCheck {
  const { timestamp, signature } = input;
  if (!timestamp || !signature) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp) || !/^[0-9a-fA-F]{64}$/.test(signature.trim())) return 'malformed';
  const skew = Math.abs(input.nowSeconds - Number(timestamp));
  if (skew > (input.windowSeconds ?? SIGNATURE_WINDOW_SECONDS)) return 'stale';
  const expected = Buffer.from(deviceSignature(input.key, input.body, timestamp), 'hex');
  const actual = Buffer.from(signature.trim().toLowerCase(), 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? 'ok' : 'bad';
}
