import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { orders } from '../../db/schema.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { newInternalId } from '../../lib/ids.js';
import { money, toDbAmount } from '../../lib/money.js';
import { writeAudit } from '../audit/audit.js';
import type { BanksService } from '../banks/banks-service.js';
import { createHold, lockBalance } from '../ledger/ledger-repository.js';
import type { MerchantRow } from '../merchants/merchants-repository.js';
import {
  type CreateOrderBody,
  callbackUrl,
  checkLimits,
  integerAmount,
} from '../orders/create-order-input.js';
import type { OrderRow } from '../orders/order-view.js';
import { DuplicateOrderError, externalIdTaken, insertPendingOrder } from '../orders/orders-repository.js';
import { amountAfterFee, computeFee } from '../orders/orders-rules.js';
import { PAYOUT_TYPES } from '../orders/payment-types.js';
import type { Allowlist } from '../outbound/address-policy.js';
import { HOLDER_ACCOUNT_DIGITS, parsePayoutDetails } from './payout-rules.js';

/** Merchant-settings key of payout min/max limits. */
export const PAYOUT_LIMITS_KEY = 'payout';

/**
 * PAYOUT orders (merchant-api.md "createOrder - PAYOUT"; decisions.md sections 6 and 10): the funds
 * are held at creation and debited when an operator marks the payout sent.
 */
export function createPayoutsService(deps: {
  database: Database;
  clock: Clock;
  banks: BanksService;
  /** Hosts merchant URLs may name although not public (OUTBOUND_ALLOWLIST). */
  outboundAllowlist: Allowlist;
}) {
  const { database, clock, banks } = deps;
  const db = database.db;

  return {
    /**
     * Creates a payout: validation, then one transaction that locks the merchant's RUB balance,
     * checks that `amountAfterFee` fits the available amount (balance - reserved; else
     * INSUFFICIENT_BALANCE), inserts the order and its hold. Parallel payouts never overdraw.
     */
    async create(merchant: MerchantRow, body: CreateOrderBody): Promise<OrderRow> {
      const type = body.type;
      if (typeof type !== 'string' || !PAYOUT_TYPES.includes(type))
        throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
      if (!merchant.paymentTypes.includes(type)) throw new AppError('PAYMENT_TYPE_NOT_ALLOWED');
      const amount = integerAmount(body.amount);
      if (body.currency !== undefined && body.currency !== null && body.currency !== 'RUB') {
        throw new AppError('CURRENCY_NOT_ALLOWED');
      }
      const bankNames = new Set((await banks.listEnabled()).map((b) => b.name));
      const details = parsePayoutDetails(body.payout_details, type, bankNames);
      checkLimits(merchant, PAYOUT_LIMITS_KEY, amount);
      const successCallbackUrl = callbackUrl(body.success_callback_url, deps.outboundAllowlist);
      const id = newInternalId();
      const externalId = typeof body.order_id === 'string' ? body.order_id : id;
      if (await externalIdTaken(db, merchant.id, externalId)) throw new AppError('ORDER_ALREADY_EXISTS');
      const feePercent = money(merchant.payoutFeePercent);
      const gross = money(amount);
      const fee = computeFee(gross, feePercent);
      const debit = amountAfterFee('PAYOUT', gross, fee);
      const now = new Date(clock.now());
      try {
        return await db.transaction(async (tx) => {
          const balance = await lockBalance(tx, merchant.id, 'RUB');
          if (balance.balance.minus(balance.reserved).lt(debit)) throw new AppError('INSUFFICIENT_BALANCE');
          const order = await insertPendingOrder(
            tx,
            {
              id,
              merchantId: merchant.id,
              externalId,
              direction: 'PAYOUT',
              method: 'payout',
              type,
              currency: 'RUB',
              amount: String(amount),
              payableAmount: String(amount),
              feePercent: toDbAmount(feePercent),
              fee: toDbAmount(fee),
              amountAfterFee: toDbAmount(debit),
              status: 'pending',
              pdAddress: details.holderAccount,
              pdBank: details.methodName,
              pdHolderName: details.holderName,
              successCallbackUrl,
              clientId: typeof body.client_id === 'string' && body.client_id ? body.client_id : null,
              comment: body.comment ?? null,
              createdAt: now,
              updatedAt: now,
            },
            `merchant:${merchant.id}`,
          );
          await createHold(tx, { orderId: id, merchantId: merchant.id, currency: 'RUB', amount: debit });
          return order;
        });
      } catch (err) {
        if (err instanceof DuplicateOrderError) throw new AppError('ORDER_ALREADY_EXISTS');
        throw err;
      }
    },

    /** An operator takes a pending payout from the queue (shown as theirs); audited. */
    async take(id: string, actor: AdminActor) {
      await db.transaction(async (tx) => {
        const rows = await tx
          .update(orders)
          .set({ assignedTo: actor.name, updatedAt: new Date(clock.now()) })
          .where(and(eq(orders.id, id), eq(orders.method, 'payout'), eq(orders.status, 'pending')))
          .returning({ id: orders.id });
        if (!rows[0]) throw new AppError('ORDER_STATE_CONFLICT');
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
      const rows = await db
        .select()
        .from(orders)
        .where(and(eq(orders.method, 'payout'), status ? eq(orders.status, status) : undefined))
        .orderBy(status === 'pending' ? orders.createdAt : desc(orders.createdAt))
        .limit(limit);
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
     * `GET /merchant/bank-standards` (decisions.md section 12): per enabled bank, the payment types it
     * serves and the account format of each.
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
