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
import { holderPayoutView, listQueue, ordersByIds } from './payout-order-reads.js';

/**
 * PAYOUT orders (docs/api.md "createOrder - PAYOUT"; docs/decisions.md sections 6 and 10): the
 * funds are held at creation and debited when an operator marks the payout sent.
 */
export function createPayoutsService(deps: PayoutsDeps) {
  const sending = payoutSending(deps);
  return {
    ...payoutCreation(deps),
    ...sending,
    ...payoutQueue(deps),
    ...holderDesk(deps, sending.markSentByHolder),
  };
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
  holders: Pick<HoldersService, 'assignPayout' | 'holderOfPayout' | 'payoutsOfHolder'>;
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

/** How long a sent payout stays on the holder's page (docs/decisions.md "Payouts on the holder's page"). */
const SENT_SHOWN_MS = 7 * 86_400_000;

/** Who acts on the holder's page: their holder, login (audited as `holder:<login>`) and IP. */
export interface PayoutHolderActor {
  holderId: string;
  login: string;
  ip: string;
}

/**
 * The holder's side of payouts through holders (docs/decisions.md "Payouts on the holder's page"):
 * what they have to send, and their mark that they sent one, which goes through `markSentByHolder`
 * exactly as the operators' `/admin/payouts/{id}/holder-sent` does.
 */
function holderDesk(
  deps: PayoutsDeps,
  markSentByHolder: ReturnType<typeof payoutSending>['markSentByHolder'],
) {
  const db = deps.database.db;
  return {
    /**
     * The payouts given to `holderId`: `toSend` (pending, oldest first, with the recipient's details
     * as the order holds them) and `sent` (succeeded within the last 7 days, newest first).
     */
    async holderPayouts(holderId: string) {
      const given = await deps.holders.payoutsOfHolder(db, holderId);
      const orders = await ordersByIds(
        db,
        given.map((g) => g.orderId),
      );
      const since = deps.clock.now() - SENT_SHOWN_MS;
      const views = orders.map(holderPayoutView);
      return {
        toSend: views
          .filter((o) => o.status === 'pending')
          .sort((a, b) => a.created_at.localeCompare(b.created_at)),
        sent: views
          .filter((o) => o.status === 'success' && o.finished_at && Date.parse(o.finished_at) >= since)
          .sort((a, b) => (b.finished_at ?? '').localeCompare(a.finished_at ?? '')),
      };
    },

    /**
     * The holder marks a payout given to them sent, with its receipt (required): NOT_YOUR_PAYOUT (403)
     * for a payout given to another holder or to none (a PAYIN never is), RECEIPT_REQUIRED without a
     * file; then `markSentByHolder` (its hold captured, the order successful, the receipt kept as
     * the proof, their held amount down, audited as `holder:<login>`): ORDER_STATE_CONFLICT (409)
     * once it is finished, the receipt codes for a file that is not PDF/JPEG/PNG. Nothing is written
     * on any refusal.
     */
    async sendAsHolder(actor: PayoutHolderActor, id: string, upload: MultipartUpload, note: string | null) {
      if ((await deps.holders.holderOfPayout(db, id)) !== actor.holderId)
        throw new AppError('NOT_YOUR_PAYOUT');
      if (!upload.file?.filename) throw new AppError('RECEIPT_REQUIRED');
      const by: AdminActor = { name: `holder:${actor.login}`, ip: actor.ip };
      const order = await markSentByHolder(id, actor.holderId, note, by, upload);
      return { id: order.id, status: order.status };
    },
  };
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
