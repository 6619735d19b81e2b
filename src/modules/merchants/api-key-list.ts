import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { apiKeys } from '../../db/tables/merchants.js';
import type { KeyMode } from './merchants-repository.js';

/** How a key stands now: the current one, an old one in its grace, or ended. */
export type ApiKeyStatus = 'current' | 'grace' | 'ended';

/** A key as the portal lists it (never the key itself: its first characters only). */
export interface ApiKeyView {
  id: string;
  /** The key's first 8 characters (12 for a `test_` key), then an ellipsis. */
  prefix: string;
  mode: KeyMode;
  status: ApiKeyStatus;
  created_at: string;
  /** To the minute; null when never used. */
  last_used_at: string | null;
  /** Until when an old key is still accepted (its grace); null otherwise. */
  grace_until: string | null;
  ended_at: string | null;
}

/** How often a key's `last_used_at` is written, at most, per key and process. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** The merchant's keys, newest first (at most `limit`). */
export async function listApiKeys(ex: Executor, merchantId: string, limit = 50) {
  return ex
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.merchantId, merchantId))
    .orderBy(desc(apiKeys.createdAt))
    .limit(limit);
}

/** Records a use of the key with this digest, unless one was recorded in the last minute. */
export async function touchApiKey(ex: Executor, keyDigest: string, now: Date): Promise<void> {
  await ex
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(apiKeys.keyDigest, keyDigest),
        or(
          isNull(apiKeys.lastUsedAt),
          lt(apiKeys.lastUsedAt, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)),
        ),
      ),
    );
}

/** A key row as the portal shows it; `open` unseals the stored key for its prefix. */
export function apiKeyView(
  row: Awaited<ReturnType<typeof listApiKeys>>[number],
  now: number,
  open: (sealed: string) => string,
): ApiKeyView {
  const key = open(row.keyCiphertext);
  const status: ApiKeyStatus = !row.active
    ? 'ended'
    : row.expiresAt === null
      ? 'current'
      : row.expiresAt.getTime() > now
        ? 'grace'
        : 'ended';
  return {
    id: row.id,
    prefix: `${key.slice(0, key.startsWith('test_') ? 12 : 8)}…`,
    mode: row.mode,
    status,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    grace_until: status === 'grace' ? (row.expiresAt?.toISOString() ?? null) : null,
    ended_at: status === 'ended' ? ((row.revokedAt ?? row.expiresAt)?.toISOString() ?? null) : null,
  };
}
