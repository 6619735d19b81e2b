import { and, desc, eq, ne } from 'drizzle-orm';
import { CACHE_CHANNEL, type Database, notify } from '../../db/database.js';
import { operatorSessions, operators } from '../../db/tables/operators.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { parseIpRanges } from '../../lib/ip-ranges.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { randomToken, type SecretBox } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import { createOperatorMfa, type OperatorRow } from './operator-mfa.js';
import { createOperatorSessions } from './operator-sessions.js';
import { createOperatorTokens } from './operator-tokens.js';
import { ROLES, type Role } from './permissions.js';

export type { OperatorRow } from './operator-mfa.js';

export function operatorView(o: OperatorRow) {
  return {
    id: o.id,
    username: o.username,
    role: o.role,
    enabled: o.enabled,
    created_at: o.createdAt.toISOString(),
    last_login_at: o.lastLoginAt?.toISOString() ?? null,
    two_factor: o.totpSealed !== null,
    ip_allowlist: o.ipAllowlist,
  };
}

function checkRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role)) throw invalidField('role', `one of ${ROLES.join(', ')}`);
  return role as Role;
}

function checkPassword(password: string): void {
  if (password.length < 10 || password.length > 200)
    throw invalidField('password', 'must be 10 to 200 characters');
}

type Db = Database['db'];

/** Accounts created and listed. */
function accountSteps(db: Db) {
  return {
    /** Creates an operator; without a password one is generated and returned once. Audited. */
    async create(
      input: { username: string; role: string; password?: string | undefined },
      actor: AdminActor,
    ) {
      if (!/^[a-z0-9._-]{3,40}$/.test(input.username))
        throw invalidField('username', '3-40 of a-z 0-9 . _ -');
      const role = checkRole(input.role);
      const password = input.password ?? randomToken(12);
      checkPassword(password);
      const passwordHash = await hashPassword(password);
      return db.transaction(async (tx) => {
        const rows = await tx
          .insert(operators)
          .values({ username: input.username, passwordHash, role })
          .onConflictDoNothing()
          .returning();
        const row = rows[0];
        if (!row) throw new AppError('ALREADY_EXISTS');
        await writeAudit(tx, actor, {
          action: 'operator.create',
          targetType: 'operator',
          targetId: row.username,
          after: operatorView(row),
        });
        return { ...operatorView(row), ...(input.password ? {} : { password }) };
      });
    },

    async list() {
      return (await db.select().from(operators).orderBy(operators.username)).map(operatorView);
    },

    /** Operators by most recent login, for the console. */
    async recent() {
      return (await db.select().from(operators).orderBy(desc(operators.lastLoginAt)).limit(100)).map(
        operatorView,
      );
    },
  };
}

/** Accounts changed by an admin or by the operator; a change drops this process's token cache. */
function changeSteps(db: Db, tokens: ReturnType<typeof createOperatorTokens>) {
  return {
    /**
     * Changes role, enabled, password or IP allowlist; disabling or a new password ends the
     * operator's sessions. Audited.
     */
    async update(
      username: string,
      patch: { role?: string; enabled?: boolean; password?: string; ip_allowlist?: string[] },
      actor: AdminActor,
    ) {
      const changes: Partial<typeof operators.$inferInsert> = {};
      if (patch.ip_allowlist !== undefined) changes.ipAllowlist = parseIpRanges(patch.ip_allowlist);
      if (patch.role !== undefined) changes.role = checkRole(patch.role);
      if (patch.enabled !== undefined) changes.enabled = patch.enabled;
      if (patch.password !== undefined) {
        checkPassword(patch.password);
        changes.passwordHash = await hashPassword(patch.password);
      }
      const view = await db.transaction(async (tx) => {
        const before = (
          await tx.select().from(operators).where(eq(operators.username, username)).for('update')
        )[0];
        if (!before) throw new AppError('NOT_FOUND');
        const after = (
          await tx.update(operators).set(changes).where(eq(operators.id, before.id)).returning()
        )[0];
        if (!after) throw new AppError('NOT_FOUND');
        if (patch.enabled === false || patch.password !== undefined) {
          await tx.delete(operatorSessions).where(eq(operatorSessions.operatorId, before.id));
        }
        await notify(tx, CACHE_CHANNEL);
        await writeAudit(tx, actor, {
          action: 'operator.update',
          targetType: 'operator',
          targetId: username,
          before: operatorView(before),
          after: { ...operatorView(after), password_changed: patch.password !== undefined },
        });
        return operatorView(after);
      });
      tokens.invalidateCache();
      return view;
    },

    /**
     * The operator changes their own password: the current one must match (VALIDATION_ERROR naming
     * `current_password`); every other session ends. Audited.
     */
    async changePassword(
      operator: OperatorRow,
      current: string,
      next: string,
      keepSessionId: string,
      actor: AdminActor,
    ) {
      if (!(await verifyPassword(operator.passwordHash, current)))
        throw invalidField('current_password', 'does not match');
      checkPassword(next);
      const passwordHash = await hashPassword(next);
      await db.transaction(async (tx) => {
        await tx.update(operators).set({ passwordHash }).where(eq(operators.id, operator.id));
        await tx
          .delete(operatorSessions)
          .where(and(eq(operatorSessions.operatorId, operator.id), ne(operatorSessions.id, keepSessionId)));
        await writeAudit(tx, actor, {
          action: 'operator.password',
          targetType: 'operator',
          targetId: operator.username,
        });
      });
    },
  };
}

/**
 * Operator accounts (docs/decisions.md sections 20 and 32), with their sessions (`operator-sessions.ts`), API tokens
 * (`operator-tokens.ts`) and second factor (`operator-mfa.ts`). Passwords are argon2id hashes;
 * session and API tokens are random and kept only as SHA-256 digests.
 */
export function createOperatorsService(deps: { database: Database; clock: Clock; secretBox: SecretBox }) {
  const { database, clock } = deps;
  const mfa = createOperatorMfa(deps);
  const sessions = createOperatorSessions({ database, clock, mfa });
  const tokens = createOperatorTokens({ database, clock });
  return {
    ...mfa,
    ...sessions,
    ...tokens,
    ...accountSteps(database.db),
    ...changeSteps(database.db, tokens),
  };
}

export type OperatorsService = ReturnType<typeof createOperatorsService>;
