import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  numeric,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { merchants } from './merchants.js';
import { requisites } from './requisites.js';

// Tables of the orders module: only src/modules/orders/ reads and writes them (docs/architecture.md).

export const orders = pgTable(
  'orders',
  {
    /** internal_id: `lux` + UUIDv7. */
    id: text('id').primaryKey(),
    /**
     * The order of insertion (an identity, taken when the row is written): a requisite's latest order
     * is its highest `seq`, the least-recently-assigned order of the pick (clock ties cannot occur).
     */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedByDefaultAsIdentity(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** external_id: the merchant's `order_id`, or the internal id when none was given. */
    externalId: text('external_id').notNull(),
    direction: text('direction').$type<'PAYIN' | 'PAYOUT'>().notNull(),
    /** Creation mode: fiat PAYIN, crypto PAYIN or PAYOUT. */
    method: text('method').$type<'fiat' | 'crypto' | 'payout'>().notNull().default('fiat'),
    type: text('type').notNull(),
    currency: text('currency').notNull(),
    /** Amount of the request, in `currency` (decimal string). */
    amount: numeric('amount').notNull(),
    /** What the payer must pay (`payment_details.amount`); differs from `amount` when disambiguated. */
    payableAmount: numeric('payable_amount').notNull(),
    feePercent: numeric('fee_percent').notNull(),
    fee: numeric('fee').notNull(),
    amountAfterFee: numeric('amount_after_fee').notNull(),
    convertToUsdt: boolean('convert_to_usdt').notNull().default(false),
    exchangeRate: numeric('exchange_rate'),
    usdtAmount: numeric('usdt_amount'),
    usdtAmountAfterFee: numeric('usdt_amount_after_fee'),
    /** Crypto: exact amount to send, 8 decimals; null until a rate exists (RUB mode). */
    cryptoAmount: numeric('crypto_amount'),
    /** Crypto: the coin/RUB rate fixed when `cryptoAmount` was computed (RUB mode) or at creation. */
    cryptoRate: numeric('crypto_rate'),
    /** Crypto: index of the derived deposit address (never reused per key network). */
    derivationIndex: integer('derivation_index'),
    /** Crypto: total received so far, in the coin. */
    receivedAmount: numeric('received_amount'),
    /** What the ledger was credited (or debited, payouts) on success, fixed then. */
    creditedCurrency: text('credited_currency'),
    creditedAmount: numeric('credited_amount'),
    status: text('status').$type<'pending' | 'success' | 'error'>().notNull(),
    statusReason: text('status_reason'),
    requisiteId: uuid('requisite_id').references(() => requisites.id),
    pdAddress: text('pd_address').notNull(),
    pdBank: text('pd_bank').notNull(),
    pdHolderName: text('pd_holder_name').notNull(),
    pdEmv: text('pd_emv'),
    successCallbackUrl: text('success_callback_url'),
    /** The payment form's "back to the shop" link for this order (docs/decisions.md section 31); null: the merchant's. */
    returnUrl: text('return_url'),
    clientId: text('client_id'),
    /** Payouts: the operator who took it from the queue. */
    assignedTo: text('assigned_to'),
    /**
     * The status of the order's latest receipt (under_review, accepted, rejected) or null; kept by the
     * receipts module through the orders module's public interface, so an order reads in one query.
     */
    receiptStatus: text('receipt_status').$type<'under_review' | 'accepted' | 'rejected'>(),
    clientRegisteredAt: ts('client_registered_at'),
    clientOrdersCount: integer('client_orders_count'),
    clientPaidCount: integer('client_paid_count'),
    comment: text('comment'),
    expiresAt: ts('expires_at'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    finishedAt: ts('finished_at'),
    /**
     * A sandbox order (docs/decisions.md section 29), made with a test key: generated payment details, no
     * requisite, no ledger entries, excluded from live reports and queues.
     */
    test: boolean('test').notNull().default(false),
  },
  (t) => [
    // A test order's order_id never blocks a live one: the sandbox and live modes each have their own.
    // order_id first: the same index finds an order by a merchant's order_id without knowing the
    // merchant (operators), one index fewer for every new order to write (docs/decisions.md "The
    // requisite claim under load").
    uniqueIndex('orders_external_merchant_uq').on(t.externalId, t.merchantId, t.test),
    index('orders_merchant_created_idx').on(t.merchantId, t.createdAt),
    index('orders_pending_amount_idx')
      .on(t.payableAmount)
      .where(sql`status = 'pending' AND method = 'fiat' AND currency = 'RUB'`),
    index('orders_pending_expiry_idx').on(t.expiresAt).where(sql`status = 'pending'`),
    // A requisite's orders newest first (its latest order, its streak of expired ones) and its pending
    // orders (max active orders, read by the requisite pick; docs/decisions.md section 7).
    index('orders_requisite_seq_idx').on(t.requisiteId, t.seq),
    index('orders_requisite_pending_idx').on(t.requisiteId).where(sql`status = 'pending'`),
    index('orders_created_idx').on(t.createdAt),
    index('orders_deposit_address_idx').on(t.pdAddress).where(sql`method = 'crypto'`),
    check('orders_status_ck', sql`${t.status} IN ('pending', 'success', 'error')`),
    check(
      'orders_direction_ck',
      sql`${t.direction} IN ('PAYIN', 'PAYOUT') AND (${t.direction} = 'PAYOUT') = (${t.method} = 'payout')`,
    ),
    check('orders_method_ck', sql`${t.method} IN ('fiat', 'crypto', 'payout')`),
    check(
      'orders_amounts_ck',
      sql`${t.amount} > 0 AND ${t.payableAmount} > 0 AND ${t.fee} >= 0 AND ${t.feePercent} >= 0 AND ${t.amountAfterFee} >= 0`,
    ),
    check(
      'orders_crypto_ck',
      sql`(${t.cryptoAmount} IS NULL OR ${t.cryptoAmount} > 0) AND (${t.receivedAmount} IS NULL OR ${t.receivedAmount} >= 0)`,
    ),
    check(
      'orders_receipt_status_ck',
      sql`${t.receiptStatus} IS NULL OR ${t.receiptStatus} IN ('under_review', 'accepted', 'rejected')`,
    ),
  ],
);

/** Timeline of an order: every status change with who made it and why (docs/decisions.md section 5). */
export const orderEvents = pgTable(
  'order_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    actor: text('actor').notNull(),
    reason: text('reason'),
    createdAt: createdAt(),
  },
  (t) => [
    index('order_events_order_idx').on(t.orderId),
    check(
      'order_events_status_ck',
      sql`${t.toStatus} IN ('pending', 'success', 'error') AND (${t.fromStatus} IS NULL OR ${t.fromStatus} IN ('pending', 'success', 'error'))`,
    ),
  ],
);
