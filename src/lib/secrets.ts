import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** Lowercase hex SHA-256 of a UTF-8 string or bytes. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Constant-time string comparison; unequal lengths compare as different without an early exit on content. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** A new random token: `bytes` random bytes as lowercase hex. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * AES-256-GCM for secrets at rest (docs/decisions.md section 4: API keys are stored encrypted under the
 * master key so that webhooks can be signed). Output: base64 of `iv(12) | tag(16) | ciphertext`.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

/**
 * Builds the box from the master key `SECRET_KEY` (any string of at least 32 characters);
 * the AES key is derived with HKDF-SHA256 so the raw setting is never used as a key directly.
 */
export function createSecretBox(masterKey: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', masterKey, 'payment-orders', 'api-key-encryption', 32));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed) {
      const raw = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
