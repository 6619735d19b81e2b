import { v4 as uuidv4 } from 'uuid';
import type { Database, Executor } from '../../db/database.js';
import type { HolderContactsColumn } from '../../db/tables/holders.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money, toDbAmount } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import {
  holderOfRequisite,
  requisitesOfHolder,
  resumeRequisites,
  setRequisitesHolder,
} from '../requisites/index.js';
import { booksOf, heldBy, postHolderMovement, postHolderReceipt } from './holders-ledger.js';
import {
  findHolder,
  type HolderRow,
  insertHolder,
  insertSettlement,
  listHolders,
  listSettlements,
  type NewHolderRow,
  updateHolder,
} from './holders-repository.js';
import { checkSettlement, parseAmount, parsePercent } from './holders-rules.js';
import { applyStanding, HOLDER_CURRENCY, holderBlocked } from './holders-standing.js';
import { holderStatement, statementCsvRows, statementPeriod } from './holders-statement.js';
import { holderRequisiteView, holderView, settlementView } from './holders-views.js';

export interface HolderInput {
  name: string;
  contacts?: HolderContactsColumn;
  commission_percent?: string | number;
  exposure_limit?: string | number | null;
  security_deposit?: string | number | null;
}

export interface HolderPatch extends Partial<HolderInput> {
  status?: 'active' | 'suspended';
}

export interface SettlementInput {
  amount: string | number;
  currency?: string;
  method: 'bank_transfer' | 'cash' | 'usdt';
  reference: string;
  tx_hash?: string;
}

export interface CorrectionInput {
  amount: string | number;
  currency?: string;
  reason: string;
}

/** The order fields the receipt hook reads (a structural subset of the orders' row). */
export interface SucceededOrder {
  id: string;
  direction: 'PAYIN' | 'PAYOUT';
  method: 'fiat' | 'crypto' | 'payout';
  requisiteId: string | null;
  currency: string;
  payableAmount: string;
  test: boolean;
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

/**
 * Holders (docs/decisions.md "Holders' money"): the people behind requisites, what each holds as a
 * ledger sum, settlements and corrections. Every write is audited; money moves in the ledger only.
 */
export function createHoldersService(deps: { database: Database; clock: Clock }) {
  const db = deps.database.db;
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
        const row = await insertHolder(tx, { name, contacts: input.contacts ?? {}, ...moneyColumns(input) });
        await writeAudit(tx, actor, {
          action: 'holder.create',
          targetType: 'holder',
          targetId: row.id,
          after: row,
        });
        return holderView(row);
      });
    },

    /** Every holder with what they hold in RUB, by name. */
    async list() {
      const rows = await listHolders(db);
      const out = [];
      for (const row of rows)
        out.push({ ...holderView(row), held: (await heldBy(db, row.id, HOLDER_CURRENCY)).toFixed() });
      return out;
    },

    /** One holder: the record, the RUB books, the requisites and the latest settlements. NOT_FOUND. */
    async get(id: string) {
      const row = await mustFind(db, id);
      return {
        ...holderView(row),
        books: await booksOf(db, id, HOLDER_CURRENCY),
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
     * The holder's requisites become exactly `requisiteIds`: those listed move to this holder (from
     * any other), the holder's others get none; all of them then follow this holder's standing
     * (`applyStanding`). VALIDATION_ERROR when one does not exist. Audited.
     */
    async setRequisites(id: string, requisiteIds: string[], actor: AdminActor) {
      const ids = [...new Set(requisiteIds)];
      return db.transaction(async (tx) => {
        await mustFind(tx, id, true);
        const before = (await requisitesOfHolder(tx, id)).map((r) => r.id);
        const set = await setRequisitesHolder(tx, ids, id, now());
        const missing = ids.filter((r) => !set.includes(r));
        if (missing.length > 0)
          throw invalidField('requisite_ids', `unknown requisites: ${missing.join(', ')}`);
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
          after: { requisite_ids: ids },
        });
        return (await requisitesOfHolder(tx, id)).map(holderRequisiteView);
      });
    },

    /**
     * Records money the holder handed over: at most what they hold (SETTLEMENT_EXCEEDS_HELD), a
     * positive amount (INVALID_AMOUNT); a USDT settlement names its transaction hash. The holder's
     * row is locked so that two settlements cannot both pass the check. Audited.
     */
    async settle(id: string, input: SettlementInput, actor: AdminActor) {
      const amount = parseAmount(input.amount, 'amount', 'positive');
      if (input.method === 'usdt' && !input.tx_hash) throw invalidField('tx_hash', 'is required for usdt');
      const currency = input.currency ?? HOLDER_CURRENCY;
      return db.transaction(async (tx) => {
        await mustFind(tx, id, true);
        checkSettlement(await heldBy(tx, id, currency), amount);
        return recordMovement(tx, id, actor, {
          kind: 'settlement',
          currency,
          amount,
          method: input.method,
          reference: input.reference,
          txHash: input.tx_hash ?? null,
          reason: null,
        });
      });
    },

    /**
     * An admin's correction of what the holder holds (signed, non-zero, with a reason). FORBIDDEN for
     * any other role, whatever its permissions. Audited.
     */
    async correct(id: string, input: CorrectionInput, actor: AdminActor) {
      if (actor.role !== 'admin') throw new AppError('FORBIDDEN');
      const amount = parseAmount(input.amount, 'amount', 'non-zero');
      if (!input.reason.trim()) throw invalidField('reason', 'must not be blank');
      return db.transaction(async (tx) => {
        await mustFind(tx, id, true);
        return recordMovement(tx, id, actor, {
          kind: 'correction',
          currency: input.currency ?? HOLDER_CURRENCY,
          amount,
          method: null,
          reference: null,
          txHash: null,
          reason: input.reason.trim(),
        });
      });
    },

    /** The holder's statement of a period (`statementPeriod`): opening, entries, closing. NOT_FOUND. */
    async statement(id: string, query: { currency?: string; from?: string; to?: string }) {
      await mustFind(db, id);
      return holderStatement(db, id, query.currency ?? HOLDER_CURRENCY, statementPeriod(query, now()));
    },

    /**
     * The holder's statement as CSV rows (`STATEMENT_CSV_COLUMNS`), read a page at a time: an
     * `opening_balance` row, then each entry. NOT_FOUND and the period's errors come before any row.
     */
    async statementRows(id: string, query: { currency?: string; from?: string; to?: string }) {
      await mustFind(db, id);
      const period = statementPeriod(query, now());
      const currency = query.currency ?? HOLDER_CURRENCY;
      return { currency, rows: statementCsvRows(db, id, currency, period) };
    },

    /** The holder's figures in `currency` (every one a ledger sum). NOT_FOUND. */
    async books(id: string, currency = HOLDER_CURRENCY) {
      await mustFind(db, id);
      return booksOf(db, id, currency);
    },

    /**
     * The lifecycle's success hook (composition root): a confirmed fiat PAYIN on a holder's requisite
     * posts what the card received (`payable_amount`) to the holder's account, once per order. Test
     * orders, crypto and payouts post nothing. A holder that this takes over their limit has their
     * requisites paused (`applyStanding`). Runs inside the lifecycle's transaction; no network.
     */
    async creditOnSuccess(ex: Executor, order: SucceededOrder): Promise<void> {
      if (order.direction !== 'PAYIN' || order.method !== 'fiat' || order.test || !order.requisiteId) return;
      const holderId = await holderOfRequisite(ex, order.requisiteId);
      if (!holderId) return;
      const holder = await findHolder(ex, holderId);
      if (!holder) return;
      const posted = await postHolderReceipt(ex, {
        holderId,
        orderId: order.id,
        currency: order.currency,
        amount: money(order.payableAmount),
        commissionPercent: money(holder.commissionPercent),
      });
      if (posted) await applyStanding(ex, holderId, new Date(deps.clock.now()));
    },
  };

  /** Writes a settlement or correction row and its journal, audited; answers the row's view. */
  async function recordMovement(
    tx: Executor,
    holderId: string,
    actor: AdminActor,
    m: {
      kind: 'settlement' | 'correction';
      currency: string;
      amount: ReturnType<typeof money>;
      method: SettlementInput['method'] | null;
      reference: string | null;
      txHash: string | null;
      reason: string | null;
    },
  ) {
    const rowId = uuidv4();
    const memo = m.kind === 'settlement' ? `${m.method}: ${m.reference}` : (m.reason ?? '');
    const journalId = await postHolderMovement(tx, {
      holderId,
      rowId,
      kind: m.kind,
      currency: m.currency,
      amount: m.amount,
      memo,
    });
    const row = await insertSettlement(tx, {
      id: rowId,
      holderId,
      kind: m.kind,
      currency: m.currency,
      amount: toDbAmount(m.amount),
      method: m.method,
      reference: m.reference,
      txHash: m.txHash,
      reason: m.reason,
      journalId,
      createdBy: actor.name,
      createdAt: new Date(deps.clock.now()),
    });
    await applyStanding(tx, holderId, new Date(deps.clock.now()));
    await writeAudit(tx, actor, {
      action: `holder.${m.kind}`,
      targetType: 'holder',
      targetId: holderId,
      after: row,
    });
    return { ...settlementView(row), books: await booksOf(tx, holderId, m.currency) };
  }
}

export type HoldersService = ReturnType<typeof createHoldersService>;
