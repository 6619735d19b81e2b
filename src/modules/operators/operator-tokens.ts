import { and, desc, eq, isNull } from 'drizzle-orm';
import { CACHE_CHANNEL, type Database, notify } from '../../db/database.js';
import { operators, operatorTokens } from '../../db/tables/operators.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { ipAllowed } from '../../lib/ip-ranges.js';
import { randomToken, sha256Hex } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { OperatorRow } from './operator-mfa.js';

/** An operator's API token as lists show it (never the token). */
export interface TokenView {
  id: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
}

/** What the token steps share: the database, the clock and this process's lookup cache. */
interface TokensContext {
  db: Database['db'];
  clock: Clock;
  tokenCache: Map<string, { operator: OperatorRow | undefined; until: number }>;
}

/** Issuing, listing and revoking an operator's tokens (the admin's side). */
function tokenLifecycle({ db, clock, tokenCache }: TokensContext) {
  async function operatorNamed(username: string) {
    const op = (await db.select().from(operators).where(eq(operators.username, username)))[0];
    if (!op) throw new AppError('NOT_FOUND');
    return op;
  }

  return {
    /** Issues an API token (shown once); the admin API takes it with the operator's role. */
    async issueToken(username: string, name: string, actor: AdminActor) {
      const token = `op_${randomToken(32)}`;
      const id = await db.transaction(async (tx) => {
        const op = (await tx.select().from(operators).where(eq(operators.username, username)))[0];
        if (!op) throw new AppError('NOT_FOUND');
        const row = (
          await tx
            .insert(operatorTokens)
            .values({ operatorId: op.id, tokenDigest: sha256Hex(token), name })
            .returning({ id: operatorTokens.id })
        )[0];
        await writeAudit(tx, actor, {
          action: 'operator.issue_token',
          targetType: 'operator',
          targetId: username,
          after: { name },
        });
        return row?.id ?? '';
      });
      return { id, username, name, token };
    },

    /** The operator's tokens, live and revoked, newest first. */
    async tokensOf(username: string): Promise<TokenView[]> {
      const op = await operatorNamed(username);
      const rows = await db
        .select()
        .from(operatorTokens)
        .where(eq(operatorTokens.operatorId, op.id))
        .orderBy(desc(operatorTokens.createdAt));
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        created_at: r.createdAt.toISOString(),
        revoked_at: r.revokedAt?.toISOString() ?? null,
      }));
    },

    /**
     * Revokes the operator's tokens: one (`tokenId`; NOT_FOUND when it is not theirs) or all. Every
     * process drops its cached lookups (NOTIFY). Audited.
     */
    async revokeTokens(username: string, actor: AdminActor, tokenId?: string) {
      if (tokenId !== undefined && !/^[0-9a-f-]{36}$/.test(tokenId)) throw new AppError('NOT_FOUND');
      await db.transaction(async (tx) => {
        const op = (await tx.select().from(operators).where(eq(operators.username, username)))[0];
        if (!op) throw new AppError('NOT_FOUND');
        const gone = await tx
          .update(operatorTokens)
          .set({ revokedAt: new Date(clock.now()) })
          .where(
            and(
              eq(operatorTokens.operatorId, op.id),
              isNull(operatorTokens.revokedAt),
              ...(tokenId ? [eq(operatorTokens.id, tokenId)] : []),
            ),
          )
          .returning({ id: operatorTokens.id });
        if (tokenId && gone.length === 0) throw new AppError('NOT_FOUND');
        await notify(tx, CACHE_CHANNEL);
        await writeAudit(tx, actor, {
          action: tokenId ? 'operator.revoke_token' : 'operator.revoke_tokens',
          targetType: 'operator',
          targetId: username,
          ...(tokenId ? { after: { token_id: tokenId } } : {}),
        });
      });
      tokenCache.clear();
    },
  };
}

/** Looking a token up on each request, cached for a second. */
function tokenLookup({ db, clock, tokenCache }: TokensContext) {
  return {
    /** The enabled operator owning an active API token, used from an allowed `ip`; cached for 1 s. */
    async byApiToken(token: string, ip: string): Promise<OperatorRow | undefined> {
      const digest = sha256Hex(token);
      const now = clock.now();
      const hit = tokenCache.get(digest);
      let op = hit && hit.until > now ? hit.operator : undefined;
      if (!hit || hit.until <= now) {
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
        op = rows[0]?.op;
        tokenCache.set(digest, { operator: op, until: now + 1000 });
      }
      return op && ipAllowed(op.ipAllowlist, ip) ? op : undefined;
    },

    /** Drops cached API-token lookups (a change made by another process). */
    invalidateCache(): void {
      tokenCache.clear();
    },
  };
}

/**
 * Operators' API tokens for automation (docs/decisions.md section 32): shown once, kept as SHA-256, used with the
 * operator's role from the operator's allowed addresses, revoked all at once or one by one.
 */
export function createOperatorTokens(deps: { database: Database; clock: Clock }) {
  const ctx: TokensContext = { db: deps.database.db, clock: deps.clock, tokenCache: new Map() };
  return { ...tokenLifecycle(ctx), ...tokenLookup(ctx) };
}
