import type { HDKey } from '@scure/bip32';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { cryptoPoolAddresses, cryptoXpubs } from '../../db/tables/crypto.js';
import type { KeyNetwork } from '../../modules/catalog/index.js';
import { deriveDepositAddress, parseExtendedPublicKey } from './address-derivation.js';
import { depositAddressInUse } from './crypto-order-reads.js';

/** How long a pool address stays with its order after the order ends, for late payments (docs/decisions.md section 8). */
export const POOL_HOLD_MS = 24 * 3600 * 1000;

const parsedKeys = new Map<string, HDKey>();

function accountKey(network: Exclude<KeyNetwork, 'ton'>, xpub: string): HDKey {
  const cacheKey = `${network}:${xpub}`;
  let key = parsedKeys.get(cacheKey);
  if (!key) {
    key = parseExtendedPublicKey(network, xpub);
    parsedKeys.set(cacheKey, key);
  }
  return key;
}

/**
 * A fresh deposit address for a new crypto order (docs/decisions.md section 8), inside its transaction:
 * for xpub networks the next derivation index (the counter row stays locked until commit, so an
 * index is never handed out twice, and a rolled-back order only skips nothing); for TON a pool
 * address not used by a pending order nor by one that ended in the last 24 h. Undefined when the
 * network has no key or no free pool address (REQUISITES_NOT_FOUND).
 */
export async function allocateDepositAddress(
  ex: Executor,
  network: KeyNetwork,
  now: Date,
): Promise<{ address: string; index: number | null } | undefined> {
  if (network === 'ton') {
    const holdSince = new Date(now.getTime() - POOL_HOLD_MS);
    const rows = await ex
      .select()
      .from(cryptoPoolAddresses)
      .where(
        and(
          eq(cryptoPoolAddresses.network, 'ton'),
          sql`NOT ${depositAddressInUse(sql`${cryptoPoolAddresses.address}`, holdSince)}`,
        ),
      )
      .orderBy(sql`${cryptoPoolAddresses.lastAssignedAt} ASC NULLS FIRST`)
      .limit(1)
      .for('update', { skipLocked: true });
    const row = rows[0];
    if (!row) return undefined;
    await ex
      .update(cryptoPoolAddresses)
      .set({ lastAssignedAt: now })
      .where(eq(cryptoPoolAddresses.id, row.id));
    return { address: row.address, index: null };
  }
  const rows = await ex
    .update(cryptoXpubs)
    .set({ nextIndex: sql`${cryptoXpubs.nextIndex} + 1` })
    .where(and(eq(cryptoXpubs.network, network), eq(cryptoXpubs.active, true)))
    .returning({ xpub: cryptoXpubs.xpub, next: cryptoXpubs.nextIndex });
  const row = rows[0];
  if (!row) return undefined;
  const index = row.next - 1;
  return { address: deriveDepositAddress(network, accountKey(network, row.xpub), index), index };
}
