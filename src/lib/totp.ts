import * as OTPAuth from 'otpauth';

/** TOTP as authenticator apps read it (RFC 6238): SHA-1, 6 digits, 30 s steps. */
const STEP_MS = 30_000;

function totpOf(secretBase32: string, label: string, issuer: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secretBase32),
  });
}

/**
 * The enrolment of a secret the server made (kept sealed while the enrolment is pending): its
 * `otpauth://` URI and that URI as a QR (PNG data URL), the same every time the page is shown, so the
 * one already scanned stays good. `label` names the account in the app (an email, an operator's name).
 */
export async function totpEnrolment(secret: string, label: string, issuer = 'Payment orders') {
  const uri = totpOf(secret, label, issuer).toString();
  // qrcode is loaded when a QR is drawn, not at start.
  const QRCode = (await import('qrcode')).default;
  return { secret, uri, qr: await QRCode.toDataURL(uri, { margin: 2, width: 220 }) };
}

/** A fresh TOTP secret (160 bits, base32), made by the server only; never one a client sends. */
export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

/**
 * The 30 s step a 6-digit `code` of `secretBase32` belongs to, within one step either side of
 * `nowMs` (phones' clocks drift), or null. Callers that keep the last accepted step refuse a step not
 * after it, so that a code is good once (RFC 6238 section 5.2).
 */
export function totpStep(secretBase32: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32, 'x', 'x').validate({ token: code, timestamp: nowMs, window: 1 });
  return delta === null ? null : Math.floor(nowMs / STEP_MS) + delta;
}
