import { and, desc, eq, gt, lt } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { operatorSessions, operators } from '../../db/tables/operators.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { ipAllowed } from '../../lib/ip-ranges.js';
import { verifyPassword } from '../../lib/passwords.js';
import { randomToken, sha256Hex } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { createOperatorMfa, OperatorRow } from './operator-mfa.js';

/** Console sessions last 12 hours. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

/** Why a sign-in was refused (the audit trail's words; the page says only "wrong name, password or code"). */
export type LoginRefusal =
  | 'unknown_user'
  | 'wrong_password'
  | 'disabled'
  | 'ip_not_allowed'
  | 'code_required'
  | 'wrong_code';

/** A console session as the operator's sessions page lists it. */
export interface SessionView {
  id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  scope: 'full' | 'enrol';
}

/** What sign-in and session steps share. */
interface SessionsContext {
  db: Database['db'];
  clock: Clock;
  mfa: ReturnType<typeof createOperatorMfa>;
}

/** Sign-in: the checks in order, the session it opens, and the audited refusal. */
function signInSteps({ db, clock, mfa }: SessionsContext) {
  async function refuse(username: string, ip: string, reason: LoginRefusal) {
    const tried = username.slice(0, 100);
    // Every failure is on the trail, with the name tried and where from (docs/decisions.md section 20).
    await writeAudit(
      db,
      { name: 'anonymous', ip },
      {
        action: 'operator.login_failed',
        targetType: 'operator',
        targetId: tried,
        after: { username: tried, reason },
      },
    );
    return { ok: false as const, reason };
  }

  return {
    /**
     * Checks a sign-in and opens a session. `code` is a TOTP code or a recovery code (needed once the
     * operator enrolled). Returns the session token (for the cookie), its CSRF token and scope, or
     * the refusal (audited).
     */
    async login(input: { username: string; password: string; code: string; ip: string; userAgent: string }) {
      const { username, ip } = input;
      const op = (await db.select().from(operators).where(eq(operators.username, username)).limit(1))[0];
      const passwordOk = await verifyPassword(op?.passwordHash, input.password);
      if (!op) return refuse(username, ip, 'unknown_user');
      if (!passwordOk) return refuse(username, ip, 'wrong_password');
      if (!op.enabled) return refuse(username, ip, 'disabled');
      if (!ipAllowed(op.ipAllowlist, ip)) return refuse(username, ip, 'ip_not_allowed');
      if (op.totpSealed && !input.code.trim()) return refuse(username, ip, 'code_required');
      const token = randomToken(32);
      const csrf = randomToken(16);
      const now = new Date(clock.now());
      const scope: 'full' | 'enrol' = mfa.mfaOwed(op) ? 'enrol' : 'full';
      const outcome = await db.transaction(async (tx) => {
        const how = op.totpSealed ? await mfa.verifySecondFactor(tx, op, input.code) : 'none';
        if (how === null) return null;
        await tx.delete(operatorSessions).where(lt(operatorSessions.expiresAt, now));
        await tx.insert(operatorSessions).values({
          tokenDigest: sha256Hex(token),
          operatorId: op.id,
          csrfToken: csrf,
          scope,
          ip,
          userAgent: input.userAgent.slice(0, 300) || null,
          expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
        });
        await tx.update(operators).set({ lastLoginAt: now }).where(eq(operators.id, op.id));
        await writeAudit(
          tx,
          { name: `operator:${op.username}`, ip },
          {
            action: 'operator.login',
            targetType: 'operator',
            targetId: op.username,
            after: { second_factor: how, scope },
          },
        );
        return how;
      });
      if (outcome === null) return refuse(username, ip, 'wrong_code');
      return { ok: true as const, token, csrf, scope, operator: op };
    },
  };
}

/** Live sessions: looked up by token, listed, ended by the operator or an admin. */
function sessionSteps({ db, clock }: SessionsContext) {
  return {
    /** The operator, CSRF token, session id and scope of a live session from an allowed IP, or undefined. */
    async session(token: string, ip: string) {
      const rows = await db
        .select({
          op: operators,
          csrf: operatorSessions.csrfToken,
          id: operatorSessions.id,
          scope: operatorSessions.scope,
        })
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
      if (!row || !ipAllowed(row.op.ipAllowlist, ip)) return undefined;
      return { operator: row.op, csrf: row.csrf, sessionId: row.id, scope: row.scope };
    },

    async logout(token: string): Promise<void> {
      await db.delete(operatorSessions).where(eq(operatorSessions.tokenDigest, sha256Hex(token)));
    },

    /** The live sessions of an operator, newest first. */
    async sessionsOf(operator: Pick<OperatorRow, 'id'>): Promise<SessionView[]> {
      const rows = await db
        .select()
        .from(operatorSessions)
        .where(
          and(
            eq(operatorSessions.operatorId, operator.id),
            gt(operatorSessions.expiresAt, new Date(clock.now())),
          ),
        )
        .orderBy(desc(operatorSessions.createdAt));
      return rows.map((r) => ({
        id: r.id,
        ip: r.ip,
        user_agent: r.userAgent,
        created_at: r.createdAt.toISOString(),
        expires_at: r.expiresAt.toISOString(),
        scope: r.scope,
      }));
    },

    /** Ends one session of `username` (NOT_FOUND when it is not theirs). Audited. */
    async revokeSession(username: string, sessionId: string, actor: AdminActor): Promise<void> {
      if (!/^[0-9a-f-]{36}$/.test(sessionId)) throw new AppError('NOT_FOUND');
      await db.transaction(async (tx) => {
        const op = (await tx.select().from(operators).where(eq(operators.username, username)))[0];
        if (!op) throw new AppError('NOT_FOUND');
        const gone = await tx
          .delete(operatorSessions)
          .where(and(eq(operatorSessions.id, sessionId), eq(operatorSessions.operatorId, op.id)))
          .returning({ id: operatorSessions.id });
        if (gone.length === 0) throw new AppError('NOT_FOUND');
        await writeAudit(tx, actor, {
          action: 'operator.revoke_session',
          targetType: 'operator',
          targetId: username,
          after: { session_id: sessionId },
        });
      });
    },
  };
}

/**
 * Console sign-in and sessions (docs/decisions.md section 32): password (argon2id, one verification whether or not
 * the name exists), then the second factor when the operator has one, the operator's IP allowlist,
 * a session of scope `enrol` for a money-moving role still owing its enrolment; sessions listed and
 * revoked one by one.
 */
export function createOperatorSessions(deps: {
  database: Database;
  clock: Clock;
  mfa: ReturnType<typeof createOperatorMfa>;
}) {
  const ctx: SessionsContext = { db: deps.database.db, clock: deps.clock, mfa: deps.mfa };
  return { ...signInSteps(ctx), ...sessionSteps(ctx) };
}
