import { and, eq, isNotNull } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { cryptoTransactions } from '../../db/tables/crypto.js';
import { normaliseTxHash } from './crypto-rules.js';

/**
 * The orders a chain transaction paid (the operators' search by tx hash, docs/decisions.md section 32): the hash
 * as explorers show it (hex with or without `0x`, any case; TON's base64), at most 20 orders.
 */
export async function orderIdsOfTx(ex: Executor, text: string): Promise<string[]> {
  // Hex for every chain; TON's base64 form is read as TON's (the stored key is hex either way).
  const hash = normaliseTxHash('TON', text);
  if (!hash) return [];
  const rows = await ex
    .selectDistinct({ orderId: cryptoTransactions.orderId })
    .from(cryptoTransactions)
    .where(and(eq(cryptoTransactions.txHash, hash), isNotNull(cryptoTransactions.orderId)))
    .limit(20);
  return rows.flatMap((r) => (r.orderId ? [r.orderId] : []));
}
