import type { Database } from '../../db/database.js';
import type { MultipartUpload } from '../../http/multipart.js';
import { type AdminActor, eventActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { newInternalId } from '../../lib/ids.js';
import { money } from '../../lib/money.js';
import type { BanksService } from '../../modules/banks/index.js';
import { HOLDER_ACCOUNT_DIGITS, parsePayoutDetails } from '../../modules/catalog/index.js';
import type { HoldersService } from '../../modules/holders/index.js';
import { createHold, lockBalance } from '../../modules/ledger/index.js';
import type { MerchantRow } from '../../modules/merchants/index.js';
import {
  amountAfterFee,
  computeFee,
  type OrderLifecycle,
  type OrderRow,
  orderCommands,
  orderQueries,
  type PayoutCommand,
} from '../../modules/orders/index.js';
import { writeAudit } from '../../platform/audit/index.js';
import type { ReceiptsService } from '../receipts/index.js';
import { listQueue } from './payout-order-reads.js';

/**
 * PAYOUT orders (docs/api.md "createOrder - PAYOUT"; docs/decisions.md sections 6 and 10): the
 * funds are held at creation and debited when an operator marks the payout sent.
 */
export function createPayoutsService(deps: PayoutsDeps) {
  return { ...payoutCreation(deps), ...payoutSending(deps), ...payoutQueue(deps) };
}

/** What the payouts service works with. */
export interface PayoutsDeps {
  database: Database;
  clock: Clock;
  banks: BanksService;
  lifecycle: OrderLifecycle;
  /** Keeps and records a payout's proof of transfer (the receipts module's). */
  proofs: Pick<ReceiptsService, 'keepProof' | 'recordProof' | 'removeProof'>;
  /** Payouts through holders (docs/decisions.md "Payouts through holders"). */
  holders: Pick<HoldersService, 'assignPayout' | 'holderOfPayout'>;
}

/** Creating a payout: the bank checked, the balance locked, the order and its hold in one transaction. */
function payoutCreation(deps: PayoutsDeps) {
  const { database, clock, banks } = deps;
  const db = database.db;
  return {
    /**
     * Creates a payout from its parsed command: its bank must be an enabled one (else
     * INVALID_PAYOUT_DETAILS), then one transaction locks the merchant's RUB balance, checks that
     * `amountAfterFee` fits the available amount (balance - reserved; else INSUFFICIENT_BALANCE),
     * inserts the order and its hold. Parallel payouts never overdraw.
     */
    async create(merchant: MerchantRow, cmd: PayoutCommand): Promise<OrderRow> {
      const bankNames = new Set((await banks.listEnabled()).map((b) => b.name));
      const details = parsePayoutDetails(cmd.details, cmd.type, bankNames);
      const id = newInternalId();
      await orderCommands.assertNewExternalId(db, merchant, cmd.orderId ?? id);
      const feePercent = money(merchant.payoutFeePercent);
      const gross = money(cmd.amount);
      const fee = computeFee(gross, feePercent);
      const debit = amountAfterFee('PAYOUT', gross, fee);
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        // A sandbox payout (docs/decisions.md section 29) holds nothing: test orders never touch balances.
        if (!merchant.test) {
          const balance = await lockBalance(tx, merchant.id, 'RUB');
          if (balance.balance.minus(balance.reserved).lt(debit)) throw new AppError('INSUFFICIENT_BALANCE');
        }
        const order = await orderCommands.insertNew(
          tx,
          {
            id,
            merchant,
            command: cmd,
            currency: 'RUB',
            figures: { amount: gross, payable: gross, feePercent, fee, amountAfterFee: debit },
            now,
          },
          { pdAddress: details.holderAccount, pdBank: details.methodName, pdHolderName: details.holderName },
        );
        if (!merchant.test)
          await createHold(tx, { orderId: id, merchantId: merchant.id, currency: 'RUB', amount: debit });
        return order;
      });
    },
  };
}

/** Sending a payout: by an operator, or by the holder it was given to (docs/decisions.md section 10). */
function payoutSending(deps: PayoutsDeps) {
  const { database, clock, lifecycle, proofs } = deps;
  const db = database.db;
  const sending = {
    /**
     * An operator marks a payout sent (docs/decisions.md section 10): its hold captured, the order successful, the proof
     * of transfer (optional: PDF, JPEG or PNG) recorded and the action audited in ONE transaction.
     * The file is checked and kept before it and deleted when it fails.
     */
    async markSent(
      id: string,
      reason: string | null,
      actor: AdminActor,
      proof?: MultipartUpload,
    ): Promise<OrderRow> {
      const file = proof ? await proofs.keepProof(proof) : undefined;
      try {
        return await db.transaction(async (tx) => {
          const before = await orderQueries.lockOrder(tx, id);
          if (!before) throw new AppError('ORDER_NOT_FOUND');
          return lifecycle.succeed(
            tx,
            before,
            {
              actor: eventActor(actor),
              reason,
              now: new Date(clock.now()),
              audit: { by: actor, action: 'order.confirm' },
            },
            {
              within: file
                ? (ex, order) => proofs.recordProof(ex, order, file).then(() => undefined)
                : undefined,
            },
          );
        });
      } catch (err) {
        if (file) await proofs.removeProof(file);
        throw err;
      }
    },

    /**
     * Gives a pending live PAYOUT to a holder to send from their card (docs/decisions.md "Payouts
     * through holders"), or moves it to another holder before it is sent. ORDER_NOT_FOUND;
     * ORDER_STATE_CONFLICT for an order that is not a pending live payout; NOT_FOUND for an unknown
     * holder; HOLDER_PAYOUTS_NOT_ALLOWED. Audited. The merchant sees nothing of it.
     */
    async assignToHolder(id: string, holderId: string, actor: AdminActor) {
      return db.transaction(async (tx) => {
        const order = await orderQueries.lockOrder(tx, id);
        if (!order) throw new AppError('ORDER_NOT_FOUND');
        if (order.method !== 'payout' || order.status !== 'pending' || order.test)
          throw new AppError('ORDER_STATE_CONFLICT');
        return deps.holders.assignPayout(tx, {
          orderId: id,
          holderId,
          currency: order.currency,
          amount: money(order.payableAmount),
          actor,
          now: new Date(clock.now()),
        });
      });
    },

    /**
     * The holder `holderId` sent the payout from their card: marked sent like `markSent` (the
     * lifecycle's success, whose hook takes the amount off what the holder holds), with the receipt
     * as the proof. HOLDER_PAYOUT_MISMATCH when the payout is not this holder's; nothing written.
     */
    async markSentByHolder(
      id: string,
      holderId: string,
      reason: string | null,
      actor: AdminActor,
      proof?: MultipartUpload,
    ) {
      if ((await deps.holders.holderOfPayout(db, id)) !== holderId)
        throw new AppError('HOLDER_PAYOUT_MISMATCH', [
          { field: 'holder_id', problem: 'the payout is not given to this holder' },
        ]);
      return sending.markSent(id, reason, actor, proof);
    },
  };
  return sending;
}

/** The operators' queue of payouts and the banks' account standards. */
function payoutQueue(deps: PayoutsDeps) {
  const { database, clock, banks } = deps;
  const db = database.db;
  return {
    /** An operator takes a pending payout from the queue (shown as theirs); audited. */
    async take(id: string, actor: AdminActor) {
      await db.transaction(async (tx) => {
        if (!(await orderCommands.assignPayout(tx, id, actor.name, new Date(clock.now())))) {
          throw new AppError('ORDER_STATE_CONFLICT');
        }
        await writeAudit(tx, actor, {
          action: 'payout.take',
          targetType: 'order',
          targetId: id,
          after: { assigned_to: actor.name },
        });
      });
    },

    /** Payouts for the operators' queue, oldest pending first; with full account numbers to execute. */
    async list(status: 'pending' | 'success' | 'error' | undefined, limit = 200) {
      const rows = await listQueue(
        db,
        { method: 'payout', test: false, ...(status ? { status } : {}) },
        limit,
      );
      return rows.map((o) => ({
        id: o.id,
        merchant_id: o.merchantId,
        order_id: o.externalId,
        type: o.type,
        status: o.status,
        amount: money(o.amount).toNumber(),
        fee: money(o.fee).toNumber(),
        amountAfterFee: money(o.amountAfterFee).toNumber(),
        holder_account: o.pdAddress,
        holder_name: o.pdHolderName,
        bank: o.pdBank,
        status_reason: o.statusReason,
        assigned_to: o.assignedTo,
        created_at: o.createdAt.toISOString(),
        finished_at: o.finishedAt?.toISOString() ?? null,
      }));
    },

    /**
     * `GET /merchant/bank-standards` (docs/decisions.md section 12): per enabled bank, the payment
     * types it serves and the account format of each.
     */
    async bankStandards() {
      const list = await banks.listEnabled();
      return list.map((b) => ({
        code: b.code,
        name: b.name,
        types: [
          ...(b.card
            ? [
                {
                  type: 'card',
                  account: 'card number',
                  digits: HOLDER_ACCOUNT_DIGITS.card ?? 16,
                  pattern: '^\\d{16}$',
                },
              ]
            : []),
          ...(b.sbp
            ? [
                {
                  type: 'sim',
                  account: 'phone number, 7XXXXXXXXXX, no +',
                  digits: HOLDER_ACCOUNT_DIGITS.sim ?? 11,
                  pattern: '^\\d{11}$',
                },
              ]
            : []),
        ],
      }));
    },
  };
}

export type PayoutsService = ReturnType<typeof createPayoutsService>;
