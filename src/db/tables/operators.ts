import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

// Tables of the operators module: only src/modules/operators/ reads and writes them (docs/architecture.md).

/** Back-office operators (docs/decisions.md section 20): password login, one role each. */
export const operators = pgTable(
  'operators',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    username: text('username').notNull().unique(),
    /** argon2id hash. */
    passwordHash: text('password_hash').notNull(),
    role: text('role').$type<'admin' | 'support' | 'payouts' | 'viewer'>().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    lastLoginAt: ts('last_login_at'),
    /** The TOTP secret (base32) sealed with SECRET_KEY; null until the operator enrols (docs/decisions.md section 32). */
    totpSealed: text('totp_sealed'),
    /** The 30 s step of the last accepted code: a code is good once (no replay within its window). */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    /**
     * The secret offered on the enrolment page until a code confirms it, sealed with SECRET_KEY: made by
     * the server, kept across a wrong code or a reload (the one already scanned stays good).
     */
    totpPendingSealed: text('totp_pending_sealed'),
    /** SHA-256 digests of the unused recovery codes (each shown once, good once). */
    recoveryCodes: jsonb('recovery_codes').$type<string[]>().notNull().default([]),
    /** Addresses and CIDR ranges the operator may sign in and use tokens from; empty: anywhere. */
    ipAllowlist: jsonb('ip_allowlist').$type<string[]>().notNull().default([]),
  },
  (t) => [check('operators_role_ck', sql`${t.role} IN ('admin', 'support', 'payouts', 'viewer')`)],
);

/** Console sessions: the cookie holds a random token; we keep its SHA-256 and the CSRF token. */
export const operatorSessions = pgTable(
  'operator_sessions',
  {
    tokenDigest: text('token_digest').primaryKey(),
    operatorId: uuid('operator_id')
      .notNull()
      .references(() => operators.id),
    /** The session's public id (the cookie's token never leaves the browser): revoking one session. */
    id: uuid('id').notNull().defaultRandom().unique(),
    csrfToken: text('csrf_token').notNull(),
    /** `full`, or `enrol`: password accepted, two-factor enrolment still owed (only that page works). */
    scope: text('scope').$type<'full' | 'enrol'>().notNull().default('full'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('operator_sessions_operator_idx').on(t.operatorId)],
);

/** Operators' API tokens for automation: the admin API takes them with the operator's role. */
export const operatorTokens = pgTable(
  'operator_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    operatorId: uuid('operator_id')
      .notNull()
      .references(() => operators.id),
    tokenDigest: text('token_digest').notNull().unique(),
    name: text('name').notNull(),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [index('operator_tokens_operator_idx').on(t.operatorId)],
);
