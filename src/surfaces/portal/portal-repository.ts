import { and, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { merchantInvites, merchantUserSessions, merchantUsers } from '../../db/tables/portal.js';

export type MerchantUserRow = typeof merchantUsers.$inferSelect;
export type PortalRole = MerchantUserRow['role'];
export type InviteRow = typeof merchantInvites.$inferSelect;

export async function userByEmail(ex: Executor, email: string): Promise<MerchantUserRow | undefined> {
  return (await ex.select().from(merchantUsers).where(eq(merchantUsers.email, email)).limit(1))[0];
}

export async function usersOf(ex: Executor, merchantId: string): Promise<MerchantUserRow[]> {
  return ex.select().from(merchantUsers).where(eq(merchantUsers.merchantId, merchantId));
}

export async function insertUser(
  ex: Executor,
  row: typeof merchantUsers.$inferInsert,
): Promise<MerchantUserRow> {
  const inserted = (await ex.insert(merchantUsers).values(row).returning())[0];
  if (!inserted) throw new Error('user insert returned nothing');
  return inserted;
}

export async function touchLogin(ex: Executor, id: string, at: Date): Promise<void> {
  await ex.update(merchantUsers).set({ lastLoginAt: at }).where(eq(merchantUsers.id, id));
}

export async function insertInvite(ex: Executor, row: typeof merchantInvites.$inferInsert): Promise<void> {
  await ex.insert(merchantInvites).values(row);
}

/** An unused, unexpired invitation, locked for its use. */
export async function lockLiveInvite(
  ex: Executor,
  codeDigest: string,
  now: Date,
): Promise<InviteRow | undefined> {
  return (
    await ex
      .select()
      .from(merchantInvites)
      .where(
        and(
          eq(merchantInvites.codeDigest, codeDigest),
          isNull(merchantInvites.usedAt),
          gt(merchantInvites.expiresAt, now),
        ),
      )
      .for('update')
  )[0];
}

/** Keeps the invitation's pending TOTP secret (sealed), made by the server for its page. */
export async function setInvitePendingTotp(ex: Executor, codeDigest: string, sealed: string): Promise<void> {
  await ex
    .update(merchantInvites)
    .set({ totpPendingSealed: sealed })
    .where(eq(merchantInvites.codeDigest, codeDigest));
}

/**
 * Records `step` as the user's last accepted TOTP step if it comes after the last one (a
 * compare-and-set: two sign-ins racing with one code, one wins). False for a code already used.
 */
export async function spendTotpStep(ex: Executor, userId: string, step: number): Promise<boolean> {
  const rows = await ex
    .update(merchantUsers)
    .set({ totpLastStep: step })
    .where(
      and(
        eq(merchantUsers.id, userId),
        or(isNull(merchantUsers.totpLastStep), lt(merchantUsers.totpLastStep, step)),
      ),
    )
    .returning({ id: merchantUsers.id });
  return rows.length > 0;
}

export async function markInviteUsed(ex: Executor, codeDigest: string, at: Date): Promise<void> {
  await ex.update(merchantInvites).set({ usedAt: at }).where(eq(merchantInvites.codeDigest, codeDigest));
}

export async function insertSession(
  ex: Executor,
  row: typeof merchantUserSessions.$inferInsert,
): Promise<void> {
  await ex.insert(merchantUserSessions).values(row);
}

/** The live session of a token digest with its user. */
export async function liveSession(ex: Executor, tokenDigest: string, now: Date) {
  return (
    await ex
      .select({ session: merchantUserSessions, user: merchantUsers })
      .from(merchantUserSessions)
      .innerJoin(merchantUsers, eq(merchantUsers.id, merchantUserSessions.userId))
      .where(and(eq(merchantUserSessions.tokenDigest, tokenDigest), gt(merchantUserSessions.expiresAt, now)))
      .limit(1)
  )[0];
}

export async function deleteSession(ex: Executor, tokenDigest: string): Promise<void> {
  await ex.delete(merchantUserSessions).where(eq(merchantUserSessions.tokenDigest, tokenDigest));
}
