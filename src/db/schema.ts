import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => ts('created_at').notNull().defaultNow();

/** Per-type amount limits of a merchant: `{ "<type>": { "min"?: "100", "max"?: "50000" } }`. */
export type TypeLimits = Record<string, { min?: string; max?: string }>;

export const merchants = pgTable('merchants', {
  id: text('id').primaryKey(),
  enabled: boolean('enabled').notNull().default(true),
  currencies: jsonb('currencies').$type<string[]>().notNull(),
  paymentTypes: jsonb('payment_types').$type<string[]>().notNull(),
  payinFeePercent: numeric('payin_fee_percent').notNull().default('0'),
  payinFeePercentByType: jsonb('payin_fee_percent_by_type')
    .$type<Record<string, string>>()
    .notNull()
    .default({}),
  payoutFeePercent: numeric('payout_fee_percent').notNull().default('0'),
  allowUsdt: boolean('allow_usdt').notNull().default(false),
  defaultAmountUp: integer('default_amount_up').notNull().default(0),
  defaultAmountDown: integer('default_amount_down').notNull().default(0),
  limits: jsonb('limits').$type<TypeLimits>().notNull().default({}),
  orderTtlSeconds: integer('order_ttl_seconds').notNull().default(900),
  cryptoOrderTtlSeconds: integer('crypto_order_ttl_seconds').notNull().default(3600),
  payinRateLimitPerSecond: integer('payin_rate_limit_per_second').notNull().default(10),
  settlement: text('settlement').$type<'fiat' | 'usdt'>().notNull().default('fiat'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** SHA-256 hex of the key: how a request's `client-api-key` is looked up. */
    keyDigest: text('key_digest').notNull(),
    /** AES-256-GCM of the key under SECRET_KEY, for signing webhooks. */
    keyCiphertext: text('key_ciphertext').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_digest_uq').on(t.keyDigest), index('api_keys_merchant_idx').on(t.merchantId)],
);

export const requisites = pgTable(
  'requisites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').$type<'card' | 'phone' | 'qr' | 'account'>().notNull(),
    bank: text('bank').notNull(),
    /** Code of a known bank (`banks.code`) when `bank` names one; same-bank types need it. */
    bankCode: text('bank_code'),
    address: text('address').notNull(),
    holderName: text('holder_name').notNull(),
    currency: text('currency').notNull(),
    minAmount: numeric('min_amount'),
    maxAmount: numeric('max_amount'),
    dailyLimit: numeric('daily_limit'),
    maxActiveOrders: integer('max_active_orders'),
    emv: text('emv'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    lastAssignedAt: ts('last_assigned_at'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  // Equality on currency and kind, then the LRU order of the pick (decisions.md section 7), so a
  // one-kind pick reads the first unlocked entry instead of sorting the pool.
  (t) => [index('requisites_pick_idx').on(t.currency, t.kind, t.lastAssignedAt.asc().nullsFirst(), t.id)],
);

export const orders = pgTable(
  'orders',
  {
    /** internal_id: `lux` + UUIDv7. */
    id: text('id').primaryKey(),
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
    clientId: text('client_id'),
    /** Payouts: the operator who took it from the queue. */
    assignedTo: text('assigned_to'),
    clientRegisteredAt: ts('client_registered_at'),
    clientOrdersCount: integer('client_orders_count'),
    clientPaidCount: integer('client_paid_count'),
    comment: text('comment'),
    expiresAt: ts('expires_at'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    uniqueIndex('orders_merchant_external_uq').on(t.merchantId, t.externalId),
    // Operators find an order by a merchant's order_id without knowing the merchant.
    index('orders_external_idx').on(t.externalId),
    index('orders_merchant_created_idx').on(t.merchantId, t.createdAt),
    index('orders_pending_amount_idx')
      .on(t.payableAmount)
      .where(sql`status = 'pending' AND method = 'fiat' AND currency = 'RUB'`),
    index('orders_pending_expiry_idx').on(t.expiresAt).where(sql`status = 'pending'`),
    index('orders_requisite_idx').on(t.requisiteId, t.status),
    index('orders_created_idx').on(t.createdAt),
    index('orders_deposit_address_idx').on(t.pdAddress).where(sql`method = 'crypto'`),
  ],
);

/** Timeline of an order: every status change with who made it and why (decisions.md section 5). */
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
  (t) => [index('order_events_order_idx').on(t.orderId)],
);

/**
 * Double-entry ledger (decisions.md section 6): every posting is a journal of entries that sum to
 * zero per currency. A merchant's balance is the sum of its `merchant:<id>` account entries.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    journalId: uuid('journal_id').notNull(),
    account: text('account').notNull(),
    merchantId: text('merchant_id'),
    currency: text('currency').notNull(),
    /** Signed: positive credits the account. */
    amount: numeric('amount').notNull(),
    kind: text('kind').notNull(),
    orderId: text('order_id'),
    memo: text('memo'),
    createdAt: createdAt(),
  },
  (t) => [
    index('ledger_account_idx').on(t.account, t.currency),
    index('ledger_order_idx').on(t.orderId),
    index('ledger_journal_idx').on(t.journalId),
  ],
);

/** Running balance per merchant and currency, kept with the ledger in the same transaction. */
export const balances = pgTable(
  'balances',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    currency: text('currency').notNull(),
    balance: numeric('balance').notNull().default('0'),
    reserved: numeric('reserved').notNull().default('0'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.currency] })],
);

/** Funds reserved by a payout until it succeeds (captured) or fails (released). */
export const holds = pgTable('holds', {
  orderId: text('order_id')
    .primaryKey()
    .references(() => orders.id),
  merchantId: text('merchant_id').notNull(),
  currency: text('currency').notNull(),
  amount: numeric('amount').notNull(),
  status: text('status').$type<'active' | 'captured' | 'released'>().notNull(),
  createdAt: createdAt(),
  settledAt: ts('settled_at'),
});

export const rates = pgTable(
  'rates',
  {
    base: text('base').notNull(),
    quote: text('quote').notNull(),
    /** Units of `quote` for one `base`, e.g. USDT/RUB = 92.5. */
    rate: numeric('rate').notNull(),
    source: text('source').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.base, t.quote] })],
);

export const banks = pgTable('banks', {
  code: text('code').primaryKey(),
  name: text('name').notNull().unique(),
  enabled: boolean('enabled').notNull().default(true),
  /** Takes fast-payment (phone) transfers. */
  sbp: boolean('sbp').notNull().default(true),
  /** Issues cards that take card-to-card transfers. */
  card: boolean('card').notNull().default(true),
  createdAt: createdAt(),
});

/** Append-only trail of every admin change: who, when, from where, what, before and after. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    actor: text('actor').notNull(),
    ip: text('ip'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: createdAt(),
  },
  (t) => [index('audit_target_idx').on(t.targetType, t.targetId), index('audit_created_idx').on(t.createdAt)],
);

/**
 * Webhook outbox (decisions.md section 11): one row per delivery, written in the transaction that
 * made the order successful. `body` is the exact JSON sent; the signature is made at send time with
 * the merchant's current key. A claimed row carries a lease (`lockedUntil`, `lockToken`).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    merchantId: text('merchant_id').notNull(),
    url: text('url').notNull(),
    body: text('body').notNull(),
    status: text('status').$type<'pending' | 'delivered' | 'exhausted'>().notNull().default('pending'),
    /** Tries made so far (the first try plus retries). */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull(),
    lockedUntil: ts('locked_until'),
    lockToken: uuid('lock_token'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    resendOf: uuid('resend_of'),
    createdAt: createdAt(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [
    index('webhook_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_order_idx').on(t.orderId),
  ],
);

/** Every delivery attempt: when, answer status, latency, error or the first 1 KB of the answer. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptNo: integer('attempt_no').notNull(),
    startedAt: ts('started_at').notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    responseSnippet: text('response_snippet'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId)],
);

/**
 * Operator-configured account-level extended public keys and the next index of each. A key is known by
 * its address at index 0 (so the same key given as xpub or zpub is one key); switching back to a key
 * used before continues its counter, so an address is never handed out twice. One key per network is active.
 */
export const cryptoXpubs = pgTable(
  'crypto_xpubs',
  {
    network: text('network').notNull(),
    /** The key's address at index 0: its identity. */
    keyId: text('key_id').notNull(),
    xpub: text('xpub').notNull(),
    nextIndex: integer('next_index').notNull().default(0),
    active: boolean('active').notNull().default(true),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.network, t.keyId] }),
    uniqueIndex('crypto_xpubs_one_active_uq').on(t.network).where(sql`active`),
  ],
);

/** Deposit addresses loaded by operators for networks without xpub derivation (TON). */
export const cryptoPoolAddresses = pgTable(
  'crypto_pool_addresses',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    network: text('network').notNull(),
    address: text('address').notNull(),
    lastAssignedAt: ts('last_assigned_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('crypto_pool_address_uq').on(t.network, t.address)],
);

/**
 * Chain transfers reported by the watcher or an operator; one row per (network, tx_hash, position):
 * the hash normalised to 64 lower-case hex characters, the position the transfer's index inside its
 * own transaction (log position or output index, 0 by default), never a block-wide index.
 */
export const cryptoTransactions = pgTable(
  'crypto_transactions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    network: text('network').notNull(),
    txHash: text('tx_hash').notNull(),
    position: integer('position').notNull().default(0),
    address: text('address').notNull(),
    amount: numeric('amount').notNull(),
    confirmations: integer('confirmations'),
    orderId: text('order_id'),
    /** credited: completed the order; partial: recorded, order still short; late / unmatched: for operators. */
    outcome: text('outcome').$type<'credited' | 'partial' | 'late' | 'unmatched' | 'ignored'>().notNull(),
    reportedBy: text('reported_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('crypto_tx_uq').on(t.network, t.txHash, t.position),
    index('crypto_tx_order_idx').on(t.orderId),
  ],
);

/**
 * Payment receipts attached to orders (merchant-api.md "POST /merchant/receipt/upload"; decisions.md
 * section 9). The file lives in the receipt storage under `storageKey` (named from the id, never from
 * the upload). A receipt is `under_review` until support accepts or rejects it.
 */
export const receipts = pgTable(
  'receipts',
  {
    id: uuid('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    merchantId: text('merchant_id').notNull(),
    source: text('source').$type<'file' | 'url' | 'form' | 'payout_proof'>().notNull(),
    sourceUrl: text('source_url'),
    /** Type sniffed from the content: application/pdf, image/jpeg or image/png. */
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    storageKey: text('storage_key').notNull(),
    status: text('status').$type<'under_review' | 'accepted' | 'rejected'>().notNull(),
    reason: text('reason'),
    reviewedBy: text('reviewed_by'),
    reviewedAt: ts('reviewed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('receipts_order_idx').on(t.orderId, t.createdAt),
    index('receipts_status_idx').on(t.status, t.createdAt),
    uniqueIndex('receipts_one_under_review_uq').on(t.orderId).where(sql`status = 'under_review'`),
  ],
);

/** Back-office operators (issue 8): password login, one role each. */
export const operators = pgTable('operators', {
  id: uuid('id').primaryKey().defaultRandom(),
  username: text('username').notNull().unique(),
  /** argon2id hash. */
  passwordHash: text('password_hash').notNull(),
  role: text('role').$type<'admin' | 'support' | 'payouts' | 'viewer'>().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: createdAt(),
  lastLoginAt: ts('last_login_at'),
});

/** Console sessions: the cookie holds a random token; we keep its SHA-256 and the CSRF token. */
export const operatorSessions = pgTable(
  'operator_sessions',
  {
    tokenDigest: text('token_digest').primaryKey(),
    operatorId: uuid('operator_id')
      .notNull()
      .references(() => operators.id),
    csrfToken: text('csrf_token').notNull(),
    ip: text('ip'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('operator_sessions_operator_idx').on(t.operatorId)],
);

/** Operators' API tokens for automation: the admin API takes them with the operator's role. */
export const operatorTokens = pgTable('operator_tokens', {
  id: uuid('id').primaryKey().defaultRandom(),
  operatorId: uuid('operator_id')
    .notNull()
    .references(() => operators.id),
  tokenDigest: text('token_digest').notNull().unique(),
  name: text('name').notNull(),
  createdAt: createdAt(),
  revokedAt: ts('revoked_at'),
});

/** Pre-reserved requisites with a fixed amount that merchants pick (`GET /merchant/pool/requisites`). */
export const requisiteOffers = pgTable(
  'requisite_offers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    requisiteId: uuid('requisite_id')
      .notNull()
      .references(() => requisites.id),
    amount: numeric('amount').notNull(),
    type: text('type').notNull(),
    status: text('status').$type<'open' | 'taken' | 'withdrawn'>().notNull().default('open'),
    expiresAt: ts('expires_at').notNull(),
    orderId: text('order_id'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('requisite_offers_open_idx').on(t.expiresAt).where(sql`status = 'open'`)],
);

/** Requisite holders' phones that report incoming bank transfers (issue 9); token kept as a digest. */
export const traderDevices = pgTable('trader_devices', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  tokenDigest: text('token_digest').notNull().unique(),
  /** The requisites this holder's device may report for. */
  requisiteIds: jsonb('requisite_ids').$type<string[]>().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: createdAt(),
});

/** Bank notifications from devices and how each was matched (never guessed: unmatched ones wait for operators). */
export const bankNotifications = pgTable(
  'bank_notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    deviceId: uuid('device_id')
      .notNull()
      .references(() => traderDevices.id),
    messageId: text('message_id').notNull(),
    requisiteId: uuid('requisite_id').notNull(),
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    receivedAt: ts('received_at').notNull(),
    text: text('text'),
    status: text('status').$type<'matched' | 'unmatched' | 'late' | 'assigned'>().notNull(),
    /** Why it is unmatched: no_order, ambiguous, late. */
    reason: text('reason'),
    orderId: text('order_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('bank_notifications_message_uq').on(t.deviceId, t.messageId),
    index('bank_notifications_status_idx').on(t.status, t.createdAt),
  ],
);
