import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { writeAudit } from '../../platform/audit/index.js';
import {
  holderOfRequisite,
  pauseRequisites,
  requisitesOfHolder,
  resumeRequisites,
} from '../requisites/index.js';
import { applyStanding } from './holders-standing.js';
import { holderRequisiteView } from './holders-views.js';

/** Who acts on a holder's page: the holder's login (audited as `holder:<login>`) and their IP. */
export interface HolderActor {
  holderId: string;
  login: string;
  ip: string;
}

/**
 * What a holder may do themselves on their page (docs/decisions.md "The holder's own page"): pause
 * and resume their OWN requisites, nothing else. A requisite of another holder, or of none, is
 * refused with NOT_YOUR_REQUISITE (403) before anything is written.
 */
export function createHolderOwnActions(deps: { database: Database; clock: Clock }) {
  const db = deps.database.db;
  const now = () => new Date(deps.clock.now());

  async function mustOwn(ex: Parameters<typeof holderOfRequisite>[0], holderId: string, requisiteId: string) {
    const owner = isUuid(requisiteId) ? await holderOfRequisite(ex, requisiteId) : null;
    if (owner !== holderId) throw new AppError('NOT_YOUR_REQUISITE');
  }

  async function view(holderId: string, requisiteId: string) {
    const found = (await requisitesOfHolder(db, holderId)).find((r) => r.id === requisiteId);
    if (!found) throw new AppError('NOT_YOUR_REQUISITE');
    return holderRequisiteView(found);
  }

  return {
    /** Whether `requisiteId` is one of `holderId`'s (the report form's check). */
    owns: async (holderId: string, requisiteId: string) =>
      isUuid(requisiteId) && (await holderOfRequisite(db, requisiteId)) === holderId,

    /**
     * The holder pauses their requisite (`paused_reason: own`): no new orders until they resume it;
     * pending orders stay. A requisite paused already for another reason keeps that reason.
     * NOT_YOUR_REQUISITE. Audited `holder.requisite_paused`.
     */
    async pause(actor: HolderActor, requisiteId: string) {
      await db.transaction(async (tx) => {
        await mustOwn(tx, actor.holderId, requisiteId);
        const paused = await pauseRequisites(tx, [requisiteId], 'own', [], now());
        await writeAudit(
          tx,
          { name: `holder:${actor.login}`, ip: actor.ip },
          {
            action: 'holder.requisite_paused',
            targetType: 'requisite',
            targetId: requisiteId,
            after: { paused: paused.length > 0 },
          },
        );
      });
      return view(actor.holderId, requisiteId);
    },

    /**
     * The holder resumes a requisite THEY paused; a pause for another reason (a bank's block, a
     * silent phone, their limit) is the operators' or the phone's to lift: REQUISITE_PAUSED_BY_OPERATOR
     * (409), nothing written. Their standing applies again after. NOT_YOUR_REQUISITE. Audited.
     */
    async resume(actor: HolderActor, requisiteId: string) {
      await db.transaction(async (tx) => {
        await mustOwn(tx, actor.holderId, requisiteId);
        const current = (await requisitesOfHolder(tx, actor.holderId)).find((r) => r.id === requisiteId);
        if (current?.pausedReason && current.pausedReason !== 'own')
          throw new AppError('REQUISITE_PAUSED_BY_OPERATOR');
        await resumeRequisites(tx, [requisiteId], ['own'], now());
        await applyStanding(tx, actor.holderId, now());
        await writeAudit(
          tx,
          { name: `holder:${actor.login}`, ip: actor.ip },
          {
            action: 'holder.requisite_resumed',
            targetType: 'requisite',
            targetId: requisiteId,
          },
        );
      });
      return view(actor.holderId, requisiteId);
    },
  };
}

export type HolderOwnActions = ReturnType<typeof createHolderOwnActions>;
