import type { Executor } from '../../db/database.js';
import { money } from '../../lib/money.js';
import { pauseRequisites, requisitesOfHolder, resumeRequisites } from '../requisites/index.js';
import { heldBy } from './holders-ledger.js';
import { findHolder } from './holders-repository.js';
import { HOLDER_CURRENCY, overLimit } from './holders-rules.js';

export { HOLDER_CURRENCY };

/**
 * Whether a holder may take new orders now: not when suspended, nor when what they hold in RUB is
 * above their exposure limit plus their security deposit (docs/decisions.md "Holders' money").
 * Pending orders are not counted here: the claim's filter adds them.
 */
export async function holderBlocked(ex: Executor, holderId: string): Promise<boolean> {
  const holder = await findHolder(ex, holderId);
  if (!holder) return false;
  if (holder.status === 'suspended') return true;
  const limit = holder.exposureLimit === null ? null : money(holder.exposureLimit);
  const deposit = holder.securityDeposit === null ? null : money(holder.securityDeposit);
  return overLimit(await heldBy(ex, holderId, HOLDER_CURRENCY), money(0), limit, deposit);
}

/**
 * Makes the holder's requisites follow their standing, in the caller's transaction: a blocked
 * holder's requisites are paused (`paused_reason: holder`, also over a silent device's pause, never
 * over a bank's block), the others' pauses for `holder` are lifted. The pick skips paused
 * requisites, so a holder over the limit gets no new orders until a settlement brings them under.
 * Answers whether the holder is blocked.
 */
export async function applyStanding(ex: Executor, holderId: string, now: Date): Promise<boolean> {
  const ids = (await requisitesOfHolder(ex, holderId)).map((r) => r.id);
  const blocked = await holderBlocked(ex, holderId);
  if (blocked) await pauseRequisites(ex, ids, 'holder', ['stale', 'liveness'], now);
  else await resumeRequisites(ex, ids, ['holder'], now);
  return blocked;
}
