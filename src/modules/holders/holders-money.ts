/**
 * Holders' money (docs/decisions.md "Holders' money"): settlements, admins' corrections, the
 * statement and the books, and the lifecycle's success hook that posts what a holder's card
 * received. Every figure is a ledger sum; every write is audited.
 */
import type { Readable } from 'node:stream';
import { v4 as uuidv4 } from 'uuid';
import type { Db, Executor } from '../../db/database.js';
import type { MultipartUpload } from '../../http/multipart.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { money, toDbAmount } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import { holderOfRequisite } from '../requisites/index.js';
import { booksOf, heldBy, postHolderMovement, postHolderReceipt } from './holders-ledger.js';
import { postHolderPayout } from './holders-payouts.js';
import { findHolder, findSettlement, type HolderRow, insertSettlement } from './holders-repository.js';
import { checkSettlement, parseAmount } from './holders-rules.js';
import { applyStanding, HOLDER_CURRENCY } from './holders-standing.js';
import { holderStatement, statementCsvRows, statementPeriod } from './holders-statement.js';
import { settlementView } from './holders-views.js';

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

/** A settlement's proof file once kept: its storage key, sniffed type and size in bytes. */
export interface KeptProof {
  id: string;
  contentType: string;
  size: number;
}

/**
 * Where settlements' proof files are kept (docs/decisions.md "Settlement proofs"): the receipts'
 * storage and content checks, handed in by the composition root (the receipts rail ranks above).
 * `keep` checks the spooled file (RECEIPT_TOO_LARGE, RECEIPT_UNSUPPORTED_FORMAT,
 * RECEIPT_CONTENT_MISMATCH; the spool removed) and keeps it under a new key; `remove` deletes a kept
 * file whose row was not written; `open` reads one back.
 */
export interface SettlementProofs {
  keep(upload: MultipartUpload): Promise<KeptProof | undefined>;
  remove(proof: KeptProof): Promise<void>;
  open(key: string): Promise<{ stream: Readable; size: number }>;
}

/** What the money operations share with the holders service. */
export interface MoneyContext {
  db: Db;
  clock: Clock;
  /** The holder, locked when asked; NOT_FOUND otherwise. */
  mustFind(ex: Executor, id: string, lock?: boolean): Promise<HolderRow>;
  /** Proof files of settlements; absent: a settlement with a file is refused (VALIDATION_ERROR). */
  proofs?: SettlementProofs | undefined;
}

/** Checks the settlement's fields (before any file is kept): the amount as a positive decimal. */
function checkSettlementInput(input: SettlementInput) {
  const amount = parseAmount(input.amount, 'amount', 'positive');
  if (input.method === 'usdt' && !input.tx_hash) throw invalidField('tx_hash', 'is required for usdt');
  if (!input.reference.trim()) throw invalidField('reference', 'must not be blank');
  return amount;
}

/** Keeps the upload's file as a proof, or undefined when it carries none. */
async function keepProof(ctx: MoneyContext, upload: MultipartUpload | undefined) {
  if (!upload?.file) return undefined;
  if (!ctx.proofs) throw invalidField('proof', 'proof files are not accepted here');
  return ctx.proofs.keep(upload);
}

/** The money half of the holders service, over `ctx`. */
export function createHolderMoney(ctx: MoneyContext) {
  const db = ctx.db;
  return {
    /**
     * Records money the holder handed over: at most what they hold (SETTLEMENT_EXCEEDS_HELD), a
     * positive amount (INVALID_AMOUNT); a USDT settlement names its transaction hash. The holder's
     * row is locked before what they hold is read, so that parallel settlements are checked one
     * after another (docs/decisions.md "Settlements in parallel"). `upload`'s file, when there is
     * one, is the proof (`SettlementProofs.keep`'s codes): checked and kept before the transaction,
     * removed again when the row is not written. Audited.
     */
    async settle(id: string, input: SettlementInput, actor: AdminActor, upload?: MultipartUpload) {
      const amount = checkSettlementInput(input);
      const currency = input.currency ?? HOLDER_CURRENCY;
      const proof = await keepProof(ctx, upload);
      try {
        return await db.transaction(async (tx) => {
          await ctx.mustFind(tx, id, true);
          checkSettlement(await heldBy(tx, id, currency), amount);
          return recordMovement(ctx, tx, id, actor, {
            kind: 'settlement',
            currency,
            amount,
            method: input.method,
            reference: input.reference,
            txHash: input.tx_hash ?? null,
            reason: null,
            proof,
          });
        });
      } catch (err) {
        if (proof) await ctx.proofs?.remove(proof);
        throw err;
      }
    },

    /**
     * A settlement's proof file to download: its stream, size, type and a file name. NOT_FOUND when
     * the holder, the settlement (of this holder) or its proof is missing.
     */
    async settlementProof(id: string, settlementId: string) {
      const row = isUuid(settlementId) ? await findSettlement(db, id, settlementId) : undefined;
      if (!row?.proofKey || !row.proofContentType || !ctx.proofs) throw new AppError('NOT_FOUND');
      const { stream, size } = await ctx.proofs.open(row.proofKey);
      const ext =
        row.proofContentType === 'image/jpeg' ? 'jpg' : (row.proofContentType.split('/')[1] ?? 'bin');
      return { stream, size, contentType: row.proofContentType, filename: `settlement-${row.id}.${ext}` };
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
        await ctx.mustFind(tx, id, true);
        return recordMovement(ctx, tx, id, actor, {
          kind: 'correction',
          currency: input.currency ?? HOLDER_CURRENCY,
          amount,
          method: null,
          reference: null,
          txHash: null,
          reason: input.reason.trim(),
          proof: undefined,
        });
      });
    },

    /** The holder's statement of a period (`statementPeriod`): opening, entries, closing. NOT_FOUND. */
    async statement(id: string, query: { currency?: string; from?: string; to?: string }) {
      await ctx.mustFind(db, id);
      return holderStatement(
        db,
        id,
        query.currency ?? HOLDER_CURRENCY,
        statementPeriod(query, new Date(ctx.clock.now())),
      );
    },

    /**
     * The holder's statement as CSV rows (`STATEMENT_CSV_COLUMNS`), read a page at a time: an
     * `opening_balance` row, then each entry. NOT_FOUND and the period's errors come before any row.
     */
    async statementRows(id: string, query: { currency?: string; from?: string; to?: string }) {
      await ctx.mustFind(db, id);
      const period = statementPeriod(query, new Date(ctx.clock.now()));
      const currency = query.currency ?? HOLDER_CURRENCY;
      return { currency, rows: statementCsvRows(db, id, currency, period) };
    },

    /** The holder's figures in `currency` (every one a ledger sum). NOT_FOUND. */
    async books(id: string, currency = HOLDER_CURRENCY) {
      await ctx.mustFind(db, id);
      return booksOf(db, id, currency);
    },

    /**
     * The lifecycle's success hook (composition root): a confirmed fiat PAYIN on a holder's requisite
     * posts what the card received (`payable_amount`) to the holder's account, once per order; a
     * payout given to a holder takes what they sent off it (`postHolderPayout`), once. Test orders
     * and crypto post nothing. A holder that this takes over their limit has their
     * requisites paused (`applyStanding`). Runs inside the lifecycle's transaction; no network.
     */
    async creditOnSuccess(ex: Executor, order: SucceededOrder): Promise<void> {
      if (order.direction === 'PAYOUT' && order.method === 'payout' && !order.test) {
        // A payout a holder sent from their card reduces what they hold (docs/decisions.md
        // "Payouts through holders").
        const paidBy = await postHolderPayout(ex, order.id);
        if (paidBy) await applyStanding(ex, paidBy, new Date(ctx.clock.now()));
        return;
      }
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
      if (posted) await applyStanding(ex, holderId, new Date(ctx.clock.now()));
    },
  };
}

/** Writes a settlement or correction row and its journal, audited; answers the row's view. */
async function recordMovement(
  ctx: MoneyContext,
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
    proof: KeptProof | undefined;
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
    proofKey: m.proof?.id ?? null,
    proofContentType: m.proof?.contentType ?? null,
    proofSize: m.proof?.size ?? null,
    journalId,
    createdBy: actor.name,
    createdAt: new Date(ctx.clock.now()),
  });
  await applyStanding(tx, holderId, new Date(ctx.clock.now()));
  await writeAudit(tx, actor, {
    action: `holder.${m.kind}`,
    targetType: 'holder',
    targetId: holderId,
    after: row,
  });
  return { ...settlementView(row), books: await booksOf(tx, holderId, m.currency) };
}
