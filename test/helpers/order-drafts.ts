import assert from 'node:assert/strict';
import { newInternalId } from '../../src/lib/ids.js';
import { money } from '../../src/lib/money.js';
import { requisiteNeedFor } from '../../src/modules/catalog/index.js';
import type { MerchantRow } from '../../src/modules/merchants/index.js';
import { newOrderRow } from '../../src/modules/orders/new-order.js';
import type { PickInput } from '../../src/modules/orders/requisite-take.js';

/**
 * A fiat PAYIN order row as createOrder builds it before the claim (no fee, no shift), and what
 * it picks a requisite by: for the claim's tests, which drive the claim and the transaction
 * without the HTTP route. `merchant` needs `id`, `orderTtlSeconds`, `cryptoOrderTtlSeconds`.
 */
export function fiatPayinDraft(
  merchant: MerchantRow,
  order: { type: string; currency: string; amount: number; now: Date; orderId?: string | null },
) {
  const need = requisiteNeedFor(order.type);
  assert.ok(need, `a payment type with a requisite: ${order.type}`);
  const { currency, amount, now } = order;
  const draft = newOrderRow({
    id: newInternalId(),
    merchant,
    command: {
      mode: 'fiat',
      type: order.type,
      amount,
      currency,
      need,
      convertToUsdt: false,
      deviation: undefined,
      offerId: undefined,
      orderId: order.orderId ?? null,
      successCallbackUrl: null,
      returnUrl: null,
      comment: null,
      client: { clientId: null, clientRegisteredAt: null, clientOrdersCount: null, clientPaidCount: null },
    },
    currency,
    figures: {
      amount: money(amount),
      payable: money(amount),
      feePercent: money(0),
      fee: money(0),
      amountAfterFee: money(amount),
    },
    now,
  });
  const pick: PickInput = { need, currency, amount: money(amount), now };
  return { draft, pick };
}
