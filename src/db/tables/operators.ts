import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from '../columns.js';

// Tables of the operators module: only src/modules/operators/ reads and writes them (docs/architecture.md).

/** Back-office operators (issue 8): password login, one role each. */
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
    csrfToken: text('csrf_token').notNull(),
    ip: text('ip'),
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
