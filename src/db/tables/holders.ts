import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

// Tables of the holders module: only src/modules/holders/ reads and writes them (docs/architecture.md).

/** How an operator reaches a holder: any of these, as the holder gave them. */
export interface HolderContactsColumn {
  phone?: string;
  telegram?: string;
  email?: string;
  note?: string;
}

/**
 * The people behind requisites and phones (docs/decisions.md "Holders' money"). What a holder holds
 * is never a column: it is the sum of the ledger account `holder:<id>`. The limit and the deposit
 * are RUB, decimal.
 */
export const holders = pgTable(
  'holders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    contacts: jsonb('contacts').$type<HolderContactsColumn>().notNull().default({}),
    status: text('status').$type<'active' | 'suspended'>().notNull().default('active'),
    /** The holder's share of what their requisites receive, percent (0 to 100). */
    commissionPercent: numeric('commission_percent').notNull().default('0'),
    /** RUB the holder may hold for the operator at most; null: no limit. */
    exposureLimit: numeric('exposure_limit'),
    /** RUB the holder left with the operator as security, raising the limit by its amount. */
    securityDeposit: numeric('security_deposit'),
    /**
     * What the holder holds in RUB, kept with each of their RUB postings in the same transaction (the
     * sum of `holder:<id>` in RUB, like a merchant's `balances` row), so that the requisite claim reads
     * it in one row instead of summing the ledger (docs/decisions.md "Holders' limits in the claim").
     */
    heldRub: numeric('held_rub').notNull().default('0'),
    /** Whether operators may give this holder PAYOUTs to execute from their card. */
    payoutsAllowed: boolean('payouts_allowed').notNull().default(false),
    /** Set by the migration that made one holder per distinct requisites' holder name. */
    fromMigration: text('from_migration'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('holders_name_idx').on(t.name),
    check('holders_status_ck', sql`${t.status} IN ('active', 'suspended')`),
    check(
      'holders_money_ck',
      sql`${t.commissionPercent} >= 0 AND ${t.commissionPercent} <= 100 AND (${t.exposureLimit} IS NULL OR ${t.exposureLimit} >= 0) AND (${t.securityDeposit} IS NULL OR ${t.securityDeposit} >= 0)`,
    ),
  ],
);

/**
 * Money a holder handed over (`settlement`) or an admin's correction of what they hold
 * (`correction`, signed, with a reason). Each row has its ledger journal (`journal_id`): the row
 * says how and by whom, the ledger says how much.
 */
export const holderSettlements = pgTable(
  'holder_settlements',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    holderId: uuid('holder_id')
      .notNull()
      .references(() => holders.id),
    kind: text('kind').$type<'settlement' | 'correction'>().notNull(),
    currency: text('currency').notNull(),
    /** Signed, currency units: a settlement is positive and reduces what the holder holds. */
    amount: numeric('amount').notNull(),
    method: text('method').$type<'bank_transfer' | 'cash' | 'usdt'>(),
    reference: text('reference'),
    txHash: text('tx_hash'),
    reason: text('reason'),
    /**
     * The settlement's proof file (docs/decisions.md "Settlement proofs"), kept in the receipts'
     * storage under this key (never a path from the upload); null: the reference alone.
     */
    proofKey: text('proof_key'),
    /** The proof's sniffed type (application/pdf, image/jpeg, image/png). */
    proofContentType: text('proof_content_type'),
    /** The proof's size, bytes. */
    proofSize: integer('proof_size'),
    journalId: uuid('journal_id').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('holder_settlements_holder_idx').on(t.holderId, t.createdAt),
    check('holder_settlements_kind_ck', sql`${t.kind} IN ('settlement', 'correction')`),
    check(
      'holder_settlements_method_ck',
      sql`${t.method} IS NULL OR ${t.method} IN ('bank_transfer', 'cash', 'usdt')`,
    ),
    check('holder_settlements_amount_ck', sql`${t.amount} <> 0`),
    // A proof is a settlement's, and whole: its key, type and size together.
    check(
      'holder_settlements_proof_ck',
      sql`(${t.proofKey} IS NULL AND ${t.proofContentType} IS NULL AND ${t.proofSize} IS NULL) OR (${t.kind} = 'settlement' AND ${t.proofKey} IS NOT NULL AND ${t.proofContentType} IS NOT NULL AND ${t.proofSize} IS NOT NULL)`,
    ),
  ],
);

/**
 * A PAYOUT given to a holder to execute from their card (docs/decisions.md "Payouts through
 * holders"): the order stays the orders module's; this row says whose card sends it. When the payout
 * succeeds, the holder's account is reduced by `amount` (keyed `holder_payout:<order>`, once).
 */
export const holderPayouts = pgTable(
  'holder_payouts',
  {
    orderId: text('order_id').primaryKey(),
    holderId: uuid('holder_id')
      .notNull()
      .references(() => holders.id),
    currency: text('currency').notNull(),
    /** What the holder sends from their card (the payout's amount), currency units. */
    amount: numeric('amount').notNull(),
    assignedBy: text('assigned_by').notNull(),
    assignedAt: ts('assigned_at').notNull().defaultNow(),
  },
  (t) => [
    index('holder_payouts_holder_idx').on(t.holderId),
    check('holder_payouts_amount_ck', sql`${t.amount} > 0`),
  ],
);

/**
 * A holder's sign-in to their own page (docs/decisions.md "The holder's own page"): a login chosen by
 * the operator's invitation, an argon2id password and a TOTP secret (sealed with SECRET_KEY), which
 * is never null: an account exists only once its second factor was enrolled.
 */
export const holderUsers = pgTable(
  'holder_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    holderId: uuid('holder_id')
      .notNull()
      .references(() => holders.id),
    /** Lower-cased. */
    login: text('login').notNull(),
    passwordHash: text('password_hash').notNull(),
    totpSealed: text('totp_sealed').notNull(),
    /** The 30 s step of the last accepted code: a code is good once. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    lastLoginAt: ts('last_login_at'),
  },
  (t) => [uniqueIndex('holder_users_login_uq').on(t.login), index('holder_users_holder_idx').on(t.holderId)],
);

/** Holders' page sessions: the cookie holds a random token; we keep its SHA-256 and the CSRF token. */
export const holderUserSessions = pgTable(
  'holder_user_sessions',
  {
    tokenDigest: text('token_digest').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => holderUsers.id),
    csrf: text('csrf').notNull(),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('holder_user_sessions_user_idx').on(t.userId)],
);

/**
 * An operator's one-time invitation of a holder to their page: the link holds a random code, we keep
 * its SHA-256; used once, within 72 hours. The TOTP secret the page offers is kept sealed here, so a
 * reload or a wrong code shows the same one.
 */
export const holderInvites = pgTable('holder_invites', {
  codeDigest: text('code_digest').primaryKey(),
  holderId: uuid('holder_id')
    .notNull()
    .references(() => holders.id),
  login: text('login').notNull(),
  invitedBy: text('invited_by').notNull(),
  createdAt: createdAt(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
  totpPendingSealed: text('totp_pending_sealed'),
});
