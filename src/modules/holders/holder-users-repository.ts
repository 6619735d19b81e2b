import { and, asc, count, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { holderInvites, holderUserSessions, holderUsers } from '../../db/tables/holders.js';

// SQL on the holders' sign-in tables (holder_users, holder_user_sessions, holder_invites).

export type HolderUserRow = typeof holderUsers.$inferSelect;
export type HolderInviteRow = typeof holderInvites.$inferSelect;

export async function userByLogin(ex: Executor, login: string): Promise<HolderUserRow | undefined> {
  return (await ex.select().from(holderUsers).where(eq(holderUsers.login, login)).limit(1))[0];
}

export async function insertUser(ex: Executor, row: typeof holderUsers.$inferInsert): Promise<HolderUserRow> {
  const inserted = (await ex.insert(holderUsers).values(row).returning())[0];
  if (!inserted) throw new Error('holder user insert returned nothing');
  return inserted;
}

export async function touchLogin(ex: Executor, id: string, at: Date): Promise<void> {
  await ex.update(holderUsers).set({ lastLoginAt: at }).where(eq(holderUsers.id, id));
}

export async function insertInvite(ex: Executor, row: typeof holderInvites.$inferInsert): Promise<void> {
  await ex.insert(holderInvites).values(row);
}

/** An unused, unexpired invitation, locked for its use. */
export async function lockLiveInvite(
  ex: Executor,
  codeDigest: string,
  now: Date,
): Promise<HolderInviteRow | undefined> {
  return (
    await ex
      .select()
      .from(holderInvites)
      .where(
        and(
          eq(holderInvites.codeDigest, codeDigest),
          isNull(holderInvites.usedAt),
          gt(holderInvites.expiresAt, now),
        ),
      )
      .for('update')
  )[0];
}

/** Keeps the invitation's pending TOTP secret (sealed). */
export async function setInvitePendingTotp(ex: Executor, codeDigest: string, sealed: string): Promise<void> {
  await ex
    .update(holderInvites)
    .set({ totpPendingSealed: sealed })
    .where(eq(holderInvites.codeDigest, codeDigest));
}

export async function markInviteUsed(ex: Executor, codeDigest: string, at: Date): Promise<void> {
  await ex.update(holderInvites).set({ usedAt: at }).where(eq(holderInvites.codeDigest, codeDigest));
}

/** Records `step` as the last accepted TOTP step if it comes after the last one; false for a replay. */
export async function spendTotpStep(ex: Executor, userId: string, step: number): Promise<boolean> {
  const rows = await ex
    .update(holderUsers)
    .set({ totpLastStep: step })
    .where(
      and(
        eq(holderUsers.id, userId),
        or(isNull(holderUsers.totpLastStep), lt(holderUsers.totpLastStep, step)),
      ),
    )
    .returning({ id: holderUsers.id });
  return rows.length > 0;
}

export async function insertSession(
  ex: Executor,
  row: typeof holderUserSessions.$inferInsert,
): Promise<void> {
  await ex.insert(holderUserSessions).values(row);
}

/** The live session of a token digest with its user. */
export async function liveSession(ex: Executor, tokenDigest: string, now: Date) {
  return (
    await ex
      .select({ session: holderUserSessions, user: holderUsers })
      .from(holderUserSessions)
      .innerJoin(holderUsers, eq(holderUsers.id, holderUserSessions.userId))
      .where(and(eq(holderUserSessions.tokenDigest, tokenDigest), gt(holderUserSessions.expiresAt, now)))
      .limit(1)
  )[0];
}

export async function deleteSession(ex: Executor, tokenDigest: string): Promise<void> {
  await ex.delete(holderUserSessions).where(eq(holderUserSessions.tokenDigest, tokenDigest));
}

/** A holder's page accounts with their live sessions' count, oldest first. */
export async function usersOfHolder(ex: Executor, holderId: string, now: Date) {
  return ex
    .select({
      id: holderUsers.id,
      login: holderUsers.login,
      enabled: holderUsers.enabled,
      createdAt: holderUsers.createdAt,
      lastLoginAt: holderUsers.lastLoginAt,
      sessions: count(holderUserSessions.tokenDigest),
    })
    .from(holderUsers)
    .leftJoin(
      holderUserSessions,
      and(eq(holderUserSessions.userId, holderUsers.id), gt(holderUserSessions.expiresAt, now)),
    )
    .where(eq(holderUsers.holderId, holderId))
    .groupBy(holderUsers.id)
    .orderBy(asc(holderUsers.createdAt));
}

/** Sets account `userId` of holder `holderId` on or off; false when it is not theirs. */
export async function setUserEnabled(
  ex: Executor,
  holderId: string,
  userId: string,
  enabled: boolean,
): Promise<boolean> {
  const rows = await ex
    .update(holderUsers)
    .set({ enabled })
    .where(and(eq(holderUsers.id, userId), eq(holderUsers.holderId, holderId)))
    .returning({ id: holderUsers.id });
  return rows.length > 0;
}

/** Ends every session of an account at once. */
export async function deleteSessionsOfUser(ex: Executor, userId: string): Promise<void> {
  await ex.delete(holderUserSessions).where(eq(holderUserSessions.userId, userId));
}
