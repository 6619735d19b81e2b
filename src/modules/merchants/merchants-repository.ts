import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { apiKeys, merchants } from '../../db/tables/merchants.js';

/**
 * A merchant. `test` is set only on the merchant of a request made with a sandbox key (docs/decisions.md
 * section 29): what that request creates and reads is test data.
 */
export type MerchantRow = typeof merchants.$inferSelect & { test?: boolean };

/** A key's mode: `test` keys are the sandbox's (docs/decisions.md section 29). */
export type KeyMode = 'live' | 'test';
export type NewMerchantRow = typeof merchants.$inferInsert;

export async function findMerchant(ex: Executor, id: string): Promise<MerchantRow | undefined> {
  const rows = await ex.select().from(merchants).where(eq(merchants.id, id)).limit(1);
  return rows[0];
}

/** Locks the merchant row for the rest of the transaction (admin edits read-modify-write). */
export async function findMerchantForUpdate(ex: Executor, id: string): Promise<MerchantRow | undefined> {
  const rows = await ex.select().from(merchants).where(eq(merchants.id, id)).limit(1).for('update');
  return rows[0];
}

export async function insertMerchant(ex: Executor, row: NewMerchantRow): Promise<MerchantRow> {
  const rows = await ex.insert(merchants).values(row).onConflictDoNothing().returning();
  const inserted = rows[0];
  if (!inserted) throw new MerchantExistsError();
  return inserted;
}

export class MerchantExistsError extends Error {}

export async function updateMerchant(
  ex: Executor,
  id: string,
  patch: Partial<NewMerchantRow>,
): Promise<MerchantRow | undefined> {
  const rows = await ex
    .update(merchants)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(merchants.id, id))
    .returning();
  return rows[0];
}

export async function listMerchants(ex: Executor): Promise<MerchantRow[]> {
  return ex.select().from(merchants).orderBy(merchants.id);
}

/** Revokes every active key of the merchant (rotation stops the old key at once). */
/**
 * Retires the merchant's keys: at once, or (`graceUntil`) still accepted for requests until then
 * while the new key signs webhooks. A key already in its grace keeps its own end.
 */
/** Ends the merchant's active keys of one mode: at once, or at `graceUntil`. */
export async function revokeApiKeys(
  ex: Executor,
  merchantId: string,
  mode: KeyMode,
  graceUntil?: Date,
): Promise<void> {
  const ofMode = and(eq(apiKeys.merchantId, merchantId), eq(apiKeys.active, true), eq(apiKeys.mode, mode));
  if (graceUntil) {
    await ex
      .update(apiKeys)
      .set({ expiresAt: graceUntil })
      .where(and(ofMode, isNull(apiKeys.expiresAt)));
    return;
  }
  await ex.update(apiKeys).set({ active: false, revokedAt: new Date() }).where(ofMode);
}

export async function insertApiKey(
  ex: Executor,
  merchantId: string,
  keyDigest: string,
  keyCiphertext: string,
  mode: KeyMode = 'live',
): Promise<void> {
  await ex.insert(apiKeys).values({ merchantId, keyDigest, keyCiphertext, mode });
}

/**
 * The merchant owning an active key with this SHA-256 digest, or undefined; `test: true` when the
 * key is a sandbox key.
 */
export async function findMerchantByKeyDigest(
  ex: Executor,
  keyDigest: string,
): Promise<MerchantRow | undefined> {
  const rows = await ex
    .select({ merchant: merchants, mode: apiKeys.mode })
    .from(apiKeys)
    .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
    .where(
      and(
        eq(apiKeys.keyDigest, keyDigest),
        eq(apiKeys.active, true),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)),
      ),
    )
    .limit(1);
  const row = rows[0];
  if (!row) return undefined;
  return row.mode === 'test' ? { ...row.merchant, test: true } : row.merchant;
}

/** Ciphertext of the merchant's current key (to sign webhooks), or undefined. */
export async function findActiveKeyCiphertext(
  ex: Executor,
  merchantId: string,
  mode: KeyMode = 'live',
): Promise<string | undefined> {
  const rows = await ex
    .select({ c: apiKeys.keyCiphertext })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.merchantId, merchantId),
        eq(apiKeys.active, true),
        isNull(apiKeys.expiresAt),
        eq(apiKeys.mode, mode),
      ),
    )
    .orderBy(desc(apiKeys.createdAt))
    .limit(1);
  return rows[0]?.c;
}
