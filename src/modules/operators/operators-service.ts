import { and, desc, eq, gt, isNull, lt } from 'drizzle-orm';
import { CACHE_CHANNEL, type Database, notify } from '../../db/database.js';
import { operatorSessions, operators, operatorTokens } from '../../db/tables/operators.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { randomToken, sha256Hex } from '../../lib/secrets.js';
import { writeAudit } from '../audit/index.js';
import { ROLES, type Role } from './permissions.js';

export type OperatorRow = typeof operators.$inferSelect;

/** Console sessions last 12 hours. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

export function operatorView(o: OperatorRow) {
  return {
    id: o.id,
    username: o.username,
    role: o.role,
    enabled: o.enabled,
    created_at: o.createdAt.toISOString(),
    last_login_at: o.lastLoginAt?.toISOString() ?? null,
  };
}

/**
 * Operator accounts, console sessions and API tokens (issue 8). Passwords are argon2id hashes;
 * session and API tokens are random and kept only as SHA-256 digests.
 */
export function createOperatorsService(deps: { database: Database; clock: Clock }) {
  const { database, clock } = deps;
  const db = database.db;
  const tokenCache = new Map<string, { operator: OperatorRow | undefined; until: number }>();

  function checkRole(role: string): Role {
    if (!(ROLES as readonly string[]).includes(role))
      throw invalidField('role', `one of ${ROLES.join(', ')}`);
    return role as Role;
  }

  function checkPassword(password: string): void {
    if (password.length < 10 || password.length > 200)
      throw invalidField('password', 'must be 10 to 200 characters');
  }

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

    /** Changes role, enabled or password; disabling ends the operator's sessions. Audited. */
    async update(
      username: string,
      patch: { role?: string; enabled?: boolean; password?: string },
      actor: AdminActor,
    ) {
      const changes: Partial<typeof operators.$inferInsert> = {};
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
      tokenCache.clear();
      return view;
    },

    /** Issues an API token for automation (shown once); the admin API takes it with the operator's role. */
    async issueToken(username: string, name: string, actor: AdminActor) {
      const token = `op_${randomToken(32)}`;
      await db.transaction(async (tx) => {
        const op = (await tx.select().from(operators).where(eq(operators.username, username)))[0];
        if (!op) throw new AppError('NOT_FOUND');
        await tx.insert(operatorTokens).values({ operatorId: op.id, tokenDigest: sha256Hex(token), name });
        await writeAudit(tx, actor, {
          action: 'operator.issue_token',
          targetType: 'operator',
          targetId: username,
          after: { name },
        });
      });
      return { username, name, token };
    },

    async revokeTokens(username: string, actor: AdminActor) {
      await db.transaction(async (tx) => {
        const op = (await tx.select().from(operators).where(eq(operators.username, username)))[0];
        if (!op) throw new AppError('NOT_FOUND');
        await tx
          .update(operatorTokens)
          .set({ revokedAt: new Date(clock.now()) })
          .where(and(eq(operatorTokens.operatorId, op.id), isNull(operatorTokens.revokedAt)));
        await notify(tx, CACHE_CHANNEL);
        await writeAudit(tx, actor, {
          action: 'operator.revoke_tokens',
          targetType: 'operator',
          targetId: username,
        });
      });
      tokenCache.clear();
    },

    /** The enabled operator owning an active API token, cached for 1 s. */
    async byApiToken(token: string): Promise<OperatorRow | undefined> {
      const digest = sha256Hex(token);
      const now = clock.now();
      const hit = tokenCache.get(digest);
      if (hit && hit.until > now) return hit.operator;
      const rows = await db
        .select({ op: operators })
        .from(operatorTokens)
        .innerJoin(operators, eq(operators.id, operatorTokens.operatorId))
        .where(
          and(
            eq(operatorTokens.tokenDigest, digest),
            isNull(operatorTokens.revokedAt),
            eq(operators.enabled, true),
          ),
        )
        .limit(1);
      if (tokenCache.size > 10_000) tokenCache.clear();
      tokenCache.set(digest, { operator: rows[0]?.op, until: now + 1000 });
      return rows[0]?.op;
    },

    /**
     * Checks a password login (always spends one argon2 verification, whether the user exists or not)
     * and opens a session. Returns the session token and its CSRF token, or undefined.
     */
    async login(username: string, password: string, ip: string) {
      const op = (await db.select().from(operators).where(eq(operators.username, username)).limit(1))[0];
      const ok = await verifyPassword(op?.passwordHash, password);
      if (!op || !ok || !op.enabled) {
        // Every failure is on the trail, with the name tried and where from (issue 17 item 15).
        const tried = username.slice(0, 100);
        await writeAudit(
          db,
          { name: 'anonymous', ip },
          {
            action: 'operator.login_failed',
            targetType: 'operator',
            targetId: tried,
            after: { username: tried, reason: !op ? 'unknown_user' : !ok ? 'wrong_password' : 'disabled' },
          },
        );
        return undefined;
      }
      const token = randomToken(32);
      const csrf = randomToken(16);
      const now = new Date(clock.now());
      await db.transaction(async (tx) => {
        await tx.delete(operatorSessions).where(lt(operatorSessions.expiresAt, now));
        await tx.insert(operatorSessions).values({
          tokenDigest: sha256Hex(token),
          operatorId: op.id,
          csrfToken: csrf,
          ip,
          expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
        });
        await tx.update(operators).set({ lastLoginAt: now }).where(eq(operators.id, op.id));
        await writeAudit(
          tx,
          { name: `operator:${op.username}`, ip },
          { action: 'operator.login', targetType: 'operator', targetId: op.username },
        );
      });
      return { token, csrf, operator: op };
    },

    /** The operator and CSRF token of a live session, or undefined. */
    async session(token: string) {
      const rows = await db
        .select({ op: operators, csrf: operatorSessions.csrfToken })
        .from(operatorSessions)
        .innerJoin(operators, eq(operators.id, operatorSessions.operatorId))
        .where(
          and(
            eq(operatorSessions.tokenDigest, sha256Hex(token)),
            gt(operatorSessions.expiresAt, new Date(clock.now())),
            eq(operators.enabled, true),
          ),
        )
        .limit(1);
      const row = rows[0];
      return row ? { operator: row.op, csrf: row.csrf } : undefined;
    },

    async logout(token: string): Promise<void> {
      await db.delete(operatorSessions).where(eq(operatorSessions.tokenDigest, sha256Hex(token)));
    },

    /** Drops cached API-token lookups (a change made by another process). */
    invalidateCache(): void {
      tokenCache.clear();
    },

    /** Operators by most recent login, for the console. */
    async recent() {
      return (await db.select().from(operators).orderBy(desc(operators.lastLoginAt)).limit(100)).map(
        operatorView,
      );
    },
  };
}

export type OperatorsService = ReturnType<typeof createOperatorsService>;
