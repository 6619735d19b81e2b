/**
 * A device's secrets and its one-time pairing link (docs/decisions.md section 24). The pairing answer is
 * sealed with a key derived from the link's code, which the server never stores (only a digest of
 * it), so the database alone does not reveal the secrets the link carries.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { randomToken, sha256Hex } from '../../lib/secrets.js';

/** How long a pairing link works, in seconds. */
export const PAIRING_TTL_SECONDS = 15 * 60;

/** The three secrets of a device: the bearer token and the two HMAC keys. */
export interface DeviceSecrets {
  /** SmsForwarder's `Authorization: Bearer` (and the pre-parsed endpoint's). */
  token: string;
  /** SMS Gateway for Android's webhook signing key. */
  signingKey: string;
  /** The native batch endpoint's HMAC key. */
  nativeSecret: string;
}

export function newDeviceSecrets(): DeviceSecrets {
  return { token: `dev_${randomToken(32)}`, signingKey: randomToken(24), nativeSecret: randomToken(32) };
}

/** A new pairing code (URL-safe) and the digest the table keeps to find it. */
export function newPairingCode(): { code: string; digest: string } {
  const code = randomBytes(24).toString('base64url');
  return { code, digest: pairingDigest(code) };
}

export function pairingDigest(code: string): string {
  return sha256Hex(`pairing-lookup:${code}`);
}

const keyOf = (code: string) => Buffer.from(hkdfSync('sha256', code, 'device-pairing', 'pairing-answer', 32));

/** AES-256-GCM of `plain` under the code's key: base64 of `iv | tag | ciphertext`. */
export function sealWithCode(code: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(code), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** Opens what sealWithCode sealed; throws when the code is not the one it was sealed with. */
export function openWithCode(code: string, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(code), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
