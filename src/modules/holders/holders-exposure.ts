import type { Decimal } from 'decimal.js';
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/database.js';
import { holders } from '../../db/tables/holders.js';
import { toDbAmount } from '../../lib/money.js';
import { HOLDER_CURRENCY } from './holders-rules.js';

// A holder's exposure in the requisite claim (docs/decisions.md "Holders' limits in the claim"): what
// they hold (the running `held_rub`) plus their pending orders plus the new order's amount, against
// their limit plus deposit. The claim is the orders module's: these are fragments it embeds, and the
// lock it takes, handed over through the composition root.

/** Advisory lock space of the per-holder exposure lock (the second key is the holder's hash). */
const EXPOSURE_LOCK = 727_401_003;

/**
 * A condition over `holderId` (a requisite's holder column, maybe null): true when the requisite has
 * no holder, or its holder is active and — when they have a limit and the order is in RUB — what they
 * hold plus `pending` (their pending RUB orders, the caller's SQL) plus `amount` stays within their
 * limit plus deposit. One primary-key probe of `holders`; `pending` is evaluated only for a limited
 * holder and a RUB order (CASE guarantees the order of evaluation).
 */
export function holderRoomSql(input: { holderId: SQL; amount: SQL; currency: SQL; pending: SQL }): SQL {
  return sql`(${input.holderId} IS NULL OR EXISTS (
    SELECT 1 FROM ${holders} AS hr WHERE hr.id = ${input.holderId} AND hr.status = 'active'
      AND CASE WHEN hr.exposure_limit IS NULL OR ${input.currency}::text <> ${HOLDER_CURRENCY} THEN true
        ELSE hr.held_rub + ${input.pending} + ${input.amount}::numeric
          <= hr.exposure_limit + coalesce(hr.security_deposit, 0) END))`;
}

/**
 * True when `holderId` (maybe null) names a holder with an exposure limit: such a requisite is taken
 * only under the holder's exposure lock (`lockHolderExposure`), never by the one-statement claim.
 */
export function holderLimitedSql(holderId: SQL): SQL {
  return sql`(${holderId} IS NOT NULL AND EXISTS (
    SELECT 1 FROM ${holders} AS hl WHERE hl.id = ${holderId} AND hl.exposure_limit IS NOT NULL))`;
}

/**
 * Serialises the orders that take a limited holder's requisites, until the caller's transaction ends:
 * the next one re-checks the room with a fresh statement that sees this one's order (READ COMMITTED),
 * so no two parallel orders both pass the limit. Taken after the requisite's row lock, and held by
 * nothing else that waits for a requisite (settlements and corrections do not take it).
 */
export async function lockHolderExposure(ex: Executor, holderId: string): Promise<void> {
  await ex.execute(sql`SELECT pg_advisory_xact_lock(${EXPOSURE_LOCK}, hashtext(${holderId}::text))`);
}

/** Keeps `held_rub` with a posting of `delta` on the holder's account (RUB only), in the same transaction. */
export async function addHeldRub(
  ex: Executor,
  holderId: string,
  currency: string,
  delta: Decimal,
): Promise<void> {
  if (currency !== HOLDER_CURRENCY || delta.isZero()) return;
  await ex
    .update(holders)
    .set({ heldRub: sql`${holders.heldRub} + ${toDbAmount(delta)}::numeric` })
    .where(eq(holders.id, holderId));
}

/** The claim's view of holders (docs/decisions.md "Holders' limits in the claim"), for the composition root. */
export const holderClaimGate = {
  room: holderRoomSql,
  limited: holderLimitedSql,
  lock: lockHolderExposure,
};
