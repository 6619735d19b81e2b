import type { Decimal } from 'decimal.js';
import { toDbAmount } from '../../lib/money.js';
import type { MerchantRow } from '../merchants/index.js';
import type { CreateOrderCommand } from './create-order-command.js';
import type { NewOrderRow } from './orders-repository.js';

/** The payment details an order copies: from its requisite (fiat), deposit address (crypto) or payout details. */
export type PaymentDetailsColumns = Pick<NewOrderRow, 'pdAddress' | 'pdBank' | 'pdHolderName'> &
  Partial<Pick<NewOrderRow, 'pdEmv' | 'requisiteId'>>;

/** A new order row without its payment details (a fiat order gets them from the requisite it claims). */
export type NewOrderDraft = Omit<NewOrderRow, keyof PaymentDetailsColumns>;

/** The figures of a new order that its mode computed (fees on the payable amount, etc.). */
export interface NewOrderFigures {
  /** The requested amount, in `currency`. */
  amount: Decimal;
  /** What the payer pays (`payment_details.amount`); the requested amount unless disambiguated. */
  payable: Decimal;
  feePercent: Decimal;
  fee: Decimal;
  amountAfterFee: Decimal;
}

/**
 * The one builder of a new pending order row, for every mode (fiat PAYIN, crypto PAYIN, PAYOUT):
 * identifiers (the external id is the merchant's `order_id`, else the internal id; docs/decisions.md
 * section 1), the figures, the client fields, the callback and comment, the deadline (PAYIN only:
 * the merchant's TTL for its method) and `extra`, the mode's own columns (payment details, USDT or
 * crypto figures). Pure: no clock, no database.
 */
export function newOrderRow(input: {
  id: string;
  merchant: MerchantRow;
  command: CreateOrderCommand;
  currency: string;
  figures: NewOrderFigures;
  now: Date;
  extra?: Partial<NewOrderDraft>;
}): NewOrderDraft {
  const { id, merchant, command, figures, now } = input;
  const payin = command.mode !== 'payout';
  const ttl = command.mode === 'crypto' ? merchant.cryptoOrderTtlSeconds : merchant.orderTtlSeconds;
  return {
    id,
    merchantId: merchant.id,
    externalId: command.orderId ?? id,
    direction: payin ? 'PAYIN' : 'PAYOUT',
    method: command.mode,
    type: command.type,
    currency: input.currency,
    amount: toDbAmount(figures.amount),
    payableAmount: toDbAmount(figures.payable),
    feePercent: toDbAmount(figures.feePercent),
    fee: toDbAmount(figures.fee),
    amountAfterFee: toDbAmount(figures.amountAfterFee),
    convertToUsdt: false,
    exchangeRate: null,
    usdtAmount: null,
    usdtAmountAfterFee: null,
    status: 'pending',
    successCallbackUrl: command.successCallbackUrl,
    returnUrl: command.returnUrl,
    clientId: command.client.clientId,
    clientRegisteredAt: command.client.clientRegisteredAt,
    clientOrdersCount: command.client.clientOrdersCount,
    clientPaidCount: command.client.clientPaidCount,
    comment: command.comment,
    expiresAt: payin ? new Date(now.getTime() + ttl * 1000) : null,
    createdAt: now,
    updatedAt: now,
    test: merchant.test === true,
    ...input.extra,
  };
}
