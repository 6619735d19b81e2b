import { createHash } from 'node:crypto';
import type { RequisiteNeed } from '../catalog/index.js';
import type { PaymentDetailsColumns } from './new-order.js';

/** The holder name of every sandbox requisite: no real person's. */
export const SANDBOX_HOLDER = 'TEST HOLDER';

/** Deterministic digits from an order id: the same test order always shows the same details. */
function digits(seed: string, count: number): string {
  const hash = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; out.length < count; i++) out += String((hash[i % hash.length] ?? 0) % 10);
  return out;
}

function chars(seed: string, alphabet: string, count: number): string {
  const hash = createHash('sha256').update(`${seed}:chars`).digest();
  let out = '';
  for (let i = 0; out.length < count; i++)
    out += alphabet[((hash[i % hash.length] ?? 0) + i) % alphabet.length];
  return out;
}

/**
 * The generated payment details of a sandbox fiat PAYIN (docs/decisions.md section 29), shaped as a live
 * order's: a card number (2200 + 12 digits, a range no issuer uses for us), a +7 900 phone, a bank
 * account, or an SBP link, by what the type needs. No requisite row is touched (`requisiteId` null).
 */
export function sandboxPaymentDetails(need: RequisiteNeed, orderId: string): PaymentDetailsColumns {
  const kind = need.kinds[0] ?? 'card';
  const bank = need.bankCode ?? 'sandbox';
  const base = { requisiteId: null, pdBank: bank, pdHolderName: SANDBOX_HOLDER, pdEmv: null };
  if (kind === 'phone') return { ...base, pdAddress: `+7900${digits(orderId, 7)}` };
  if (kind === 'account') return { ...base, pdAddress: `40817810${digits(orderId, 12)}` };
  if (kind === 'qr') {
    const link = `https://qr.nspk.ru/TEST${chars(orderId, '0123456789ABCDEF', 28)}`;
    return { ...base, pdAddress: link, pdEmv: link };
  }
  return { ...base, pdAddress: `2200${digits(orderId, 12)}` };
}
