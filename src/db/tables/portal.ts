import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';
import { merchants } from './merchants.js';

// Tables of the portal module: only src/surfaces/portal/ reads and writes them (docs/architecture.md).

/**
 * People of a merchant who sign in to the portal (docs/decisions.md section 28). `role`: `owner` (everything,
 * TOTP mandatory), `developer` (keys' use, webhooks, sandbox; no key rotation or users),
 * `accountant` (read only). Passwords are argon2id hashes; the TOTP secret is sealed with SECRET_KEY.
 */
export const merchantUsers = pgTable(
  'merchant_users',
  {
    id: uuid('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** Lower-cased. */
    email: text('email').notNull(),
    role: text('role').$type<'owner' | 'developer' | 'accountant'>().notNull(),
    passwordHash: text('password_hash').notNull(),
    totpSealed: text('totp_sealed'),
    /** The 30 s step of the last accepted code: a code is good once (no replay within its window). */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    lastLoginAt: ts('last_login_at'),
  },
  (t) => [
    uniqueIndex('merchant_users_email_uq').on(t.email),
    index('merchant_users_merchant_idx').on(t.merchantId),
    check('merchant_users_role_ck', sql`${t.role} IN ('owner', 'developer', 'accountant')`),
  ],
);

/** Portal sessions: the cookie holds a random token; we keep its SHA-256 and the CSRF token. */
export const merchantUserSessions = pgTable(
  'merchant_user_sessions',
  {
    tokenDigest: text('token_digest').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => merchantUsers.id),
    csrf: text('csrf').notNull(),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('merchant_user_sessions_user_idx').on(t.userId)],
);

/**
 * One-time invitations (an operator's or the owner's): the link holds a random code, we keep its
 * SHA-256. Used once, within its life.
 */
export const merchantInvites = pgTable(
  'merchant_invites',
  {
    codeDigest: text('code_digest').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    email: text('email').notNull(),
    role: text('role').$type<'owner' | 'developer' | 'accountant'>().notNull(),
    invitedBy: text('invited_by').notNull(),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    /**
     * The TOTP secret offered on this invitation's page, sealed with SECRET_KEY: made by the server
     * once, kept across a wrong code or a reload, so the one already scanned stays good.
     */
    totpPendingSealed: text('totp_pending_sealed'),
  },
  (t) => [check('merchant_invites_role_ck', sql`${t.role} IN ('owner', 'developer', 'accountant')`)],
);
