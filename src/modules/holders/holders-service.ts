import type { Database, Executor } from '../../db/database.js';
import type { HolderContactsColumn } from '../../db/tables/holders.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { toDbAmount } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import {
  lockRequisiteHolders,
  requisitesOfHolder,
  resumeRequisites,
  setRequisitesHolder,
} from '../requisites/index.js';
import { booksOf, heldBy } from './holders-ledger.js';
import { createHolderMoney, type SettlementProofs } from './holders-money.js';
import { assignPayout, holderOfPayout, payoutsOfHolder } from './holders-payouts.js';

export type {
  CorrectionInput,
  KeptProof,
  SettlementInput,
  SettlementProofs,
  SucceededOrder,
} from './holders-money.js';

import {
  findHolder,
  type HolderRow,
  insertHolder,
  listHolders,
  listSettlements,
  type NewHolderRow,
  updateHolder,
} from './holders-repository.js';
import { assignmentConflict, otherHolders, parseAmount, parsePercent } from './holders-rules.js';
import { applyStanding, HOLDER_CURRENCY, holderBlocked } from './holders-standing.js';
import { holderRequisiteView, holderView, settlementView } from './holders-views.js';

export interface HolderInput {
  name: string;
  contacts?: HolderContactsColumn;
  commission_percent?: string | number;
  exposure_limit?: string | number | null;
  security_deposit?: string | number | null;
  /** Whether operators may give this holder PAYOUTs to send from their card. */
  payouts_allowed?: boolean;
}

export interface HolderPatch extends Partial<HolderInput> {
  status?: 'active' | 'suspended';
}

/** The money columns of an input, read as decimals (INVALID_AMOUNT / VALIDATION_ERROR otherwise). */
function moneyColumns(input: Partial<HolderInput>): Partial<NewHolderRow> {
  const out: Partial<NewHolderRow> = {};
  if (input.commission_percent !== undefined)
    out.commissionPercent = toDbAmount(parsePercent(input.commission_percent));
  for (const [field, column] of [
    ['exposure_limit', 'exposureLimit'],
    ['security_deposit', 'securityDeposit'],
  ] as const) {
    const v = input[field];
    if (v === undefined) continue;
    out[column] = v === null ? null : toDbAmount(parseAmount(v, field, 'non-negative'));
  }
  return out;
}

/** Every holder with held, pending (RUB) and the latest settlement's time, by name. */
async function listWithFigures(db: Executor, pendingOf: (ids: string[]) => Promise<Map<string, string>>) {
  const rows = await listHolders(db);
  const pending = await pendingOf(rows.map((r) => r.id));
  const out = [];
  for (const row of rows) {
    const last = (await listSettlements(db, row.id, 1, 'settlement'))[0];
    out.push({
      ...holderView(row),
      held: (await heldBy(db, row.id, HOLDER_CURRENCY)).toFixed(),
      pending: pending.get(row.id) ?? '0',
      last_settlement_at: last ? last.createdAt.toISOString() : null,
    });
  }
  return out;
}

/** Payouts through holders (docs/decisions.md "Payouts through holders", "Payouts on the holder's page"). */
const HOLDER_PAYOUTS = {
  /** Gives a pending payout (checked by the payouts rail) to a holder, in its transaction. */
  assignPayout,
  /** The holder a payout was given to, or undefined. */
  holderOfPayout,
  /** The payouts given to a holder, newest first (their page's "Payouts to send"). */
  payoutsOfHolder,
};

/**
 * Holders (docs/decisions.md "Holders' money"): the people behind requisites, what each holds as a
 * ledger sum, settlements and corrections. Every write is audited; money moves in the ledger only.
 */
export function createHoldersService(deps: {
  database: Database;
  clock: Clock;
  /**
   * Each holder's pending RUB orders (the orders module's `holderPendingSums`, handed in by the
   * composition root); absent: shown as 0.
   */
  pendingOf?: (holderIds: string[]) => Promise<Map<string, string>>;
  /** Where settlements' proof files are kept (the receipts' storage, through the composition root). */
  proofs?: SettlementProofs;
}) {
  const db = deps.database.db;
  const pendingOf = async (ids: string[]) =>
    deps.pendingOf ? deps.pendingOf(ids) : new Map<string, string>();
  const now = () => new Date(deps.clock.now());

  async function mustFind(ex: Executor, id: string, lock = false): Promise<HolderRow> {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await findHolder(ex, id, lock) : undefined;
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  return {
    /** Creates a holder (status active). Audited `holder.create`. */
    async create(input: HolderInput, actor: AdminActor) {
      const name = input.name.trim();
      if (!name) throw invalidField('name', 'must not be blank');
      return db.transaction(async (tx) => {
        const row = await insertHolder(tx, {
          name,
          contacts: input.contacts ?? {},
          payoutsAllowed: input.payouts_allowed ?? false,
          ...moneyColumns(input),
        });
        await writeAudit(tx, actor, {
          action: 'holder.create',
          targetType: 'holder',
          targetId: row.id,
          after: row,
        });
        return holderView(row);
      });
    },

    /**
     * Every holder with what they hold in RUB, their pending RUB orders and their latest settlement's
     * time, by name.
     */
    list: () => listWithFigures(db, pendingOf),

    /** One holder: the record, the RUB books, pending RUB orders, the requisites and the latest settlements. NOT_FOUND. */
    async get(id: string) {
      const row = await mustFind(db, id);
      return {
        ...holderView(row),
        books: await booksOf(db, id, HOLDER_CURRENCY),
        pending: (await pendingOf([id])).get(id) ?? '0',
        blocked: await holderBlocked(db, id),
        requisites: (await requisitesOfHolder(db, id)).map(holderRequisiteView),
        settlements: (await listSettlements(db, id, 20)).map(settlementView),
      };
    },

    /** Changes a holder's record (name, contacts, status, commission, limit, deposit). Audited. */
    async update(id: string, patch: HolderPatch, actor: AdminActor) {
      const set: Partial<NewHolderRow> = { ...moneyColumns(patch), updatedAt: now() };
      if (patch.name !== undefined) {
        if (!patch.name.trim()) throw invalidField('name', 'must not be blank');
        set.name = patch.name.trim();
      }
      if (patch.contacts !== undefined) set.contacts = patch.contacts;
      if (patch.status !== undefined) set.status = patch.status;
      if (patch.payouts_allowed !== undefined) set.payoutsAllowed = patch.payouts_allowed;
      return db.transaction(async (tx) => {
        const before = await mustFind(tx, id, true);
        const after = await updateHolder(tx, id, set);
        if (!after) throw new AppError('NOT_FOUND');
        await writeAudit(tx, actor, {
          action: 'holder.update',
          targetType: 'holder',
          targetId: id,
          before,
          after,
        });
        await applyStanding(tx, id, now());
        return holderView(after);
      });
    },

    /**
     * The holder's requisites become exactly `requisiteIds`; the holder's others get none; all of
     * them then follow this holder's standing (`applyStanding`). A requisite of another holder moves
     * only with `move` (docs/decisions.md "Assigning requisites and phones to holders"):
     * HOLDER_ASSIGNMENT_CONFLICT otherwise, naming each and its holder, nothing written.
     * VALIDATION_ERROR when one does not exist. Audited, with the holders they moved from.
     */
    async setRequisites(id: string, requisiteIds: string[], actor: AdminActor, move = false) {
      const ids = [...new Set(requisiteIds)];
      return db.transaction(async (tx) => {
        await mustFind(tx, id, true);
        const before = (await requisitesOfHolder(tx, id)).map((r) => r.id);
        const holdersNow = await lockRequisiteHolders(tx, ids);
        const missing = ids.filter((r) => !holdersNow.has(r));
        if (missing.length > 0)
          throw invalidField('requisite_ids', `unknown requisites: ${missing.join(', ')}`);
        const movedFrom = otherHolders(holdersNow, id);
        if (movedFrom.length > 0 && !move) throw assignmentConflict('requisite_ids', movedFrom);
        await setRequisitesHolder(tx, ids, id, now());
        const removed = before.filter((r) => !ids.includes(r));
        await setRequisitesHolder(tx, removed, null, now());
        // A requisite's pause for its holder's standing goes with the holder it leaves.
        await resumeRequisites(tx, [...removed, ...ids], ['holder'], now());
        await applyStanding(tx, id, now());
        await writeAudit(tx, actor, {
          action: 'holder.requisites',
          targetType: 'holder',
          targetId: id,
          before: { requisite_ids: before },
          after: { requisite_ids: ids, moved_from: Object.fromEntries(movedFrom) },
        });
        return (await requisitesOfHolder(tx, id)).map(holderRequisiteView);
      });
    },

    ...createHolderMoney({ db, clock: deps.clock, mustFind, proofs: deps.proofs }),

    ...HOLDER_PAYOUTS,
  };
}

export type HoldersService = ReturnType<typeof createHoldersService>;
