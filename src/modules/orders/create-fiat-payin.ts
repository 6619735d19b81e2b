import type { Decimal } from 'decimal.js';
import type { Database, Executor } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { newInternalId } from '../../lib/ids.js';
import { money, toDbAmount } from '../../lib/money.js';
import type { MerchantRow } from '../merchants/index.js';
import type { RatesService } from '../rates/index.js';
import type { PickedRequisite } from '../requisites/index.js';
import type { FiatPayinCommand } from './create-order-command.js';
import { checkLimits } from './create-order-input.js';
import { newOrderRow } from './new-order.js';
import { assertNewExternalId, insertOrder } from './orders-repository.js';
import { amountAfterFee, computeFee, usdtFigures } from './orders-rules.js';
import type { Claim, ClaimedOrder } from './requisite-claim.js';
import { insertAssignedOrder, type PickInput, requisiteColumns } from './requisite-take.js';
import { firstFreeRubAmount, lockRubAmounts } from './rub-amounts.js';
import { sandboxPaymentDetails } from './sandbox-details.js';

/** A pool offer taken for an order inside its transaction (the pool module's, docs/decisions.md section 23). */
export type TakeOffer = (
  ex: Executor,
  offerId: string,
  type: string,
  orderId: string,
  merchant: MerchantRow,
) => Promise<{
  amount: string;
  requisite: Pick<
    PickedRequisite,
    'id' | 'address' | 'bank' | 'holderName' | 'emv' | 'currency' | 'holderId'
  >;
}>;

/**
 * Fiat PAYIN creation (docs/api.md "createOrder - fiat PAYIN"; docs/decisions.md sections 6-7)
 * from a parsed command. The common case is one statement (the claim: a free requisite and the
 * order on it); a shifting RUB order, a pool offer, a requisite with limits or a pool whose free
 * requisites are all held take one short transaction: the amounts lock (RUB), the disambiguated
 * amount, the requisite (waiting for one when all are held), the order.
 * A test key's order takes generated details instead (sandbox-details.ts); a pool offer is live
 * only (REQUISITES_NOT_FOUND in the sandbox).
 * Throws ORDER_ALREADY_EXISTS, REQUISITES_NOT_FOUND, EXCHANGE_RATE_UNAVAILABLE.
 */
export function createFiatPayinFlow(deps: {
  database: Database;
  clock: Clock;
  rates: RatesService;
  claim: Claim;
  takeOffer?: TakeOffer | undefined;
}) {
  const { database, clock, rates, claim } = deps;
  const db = database.db;

  return async function createFiatPayin(merchant: MerchantRow, cmd: FiatPayinCommand): Promise<ClaimedOrder> {
    let rate: Decimal | undefined;
    if (cmd.convertToUsdt) {
      rate = await rates.fresh(db, 'USDT', cmd.currency);
      if (!rate) throw new AppError('EXCHANGE_RATE_UNAVAILABLE');
    }
    const id = newInternalId();
    const now = new Date(clock.now());
    const feePercent = money(merchant.payinFeePercentByType[cmd.type] ?? merchant.payinFeePercent);
    const shifting = cmd.currency === 'RUB' && cmd.deviation !== undefined && cmd.offerId === undefined;
    const pick = (payable: number): PickInput => ({
      need: cmd.need,
      currency: cmd.currency,
      amount: money(payable),
      now,
    });
    /** The row for a payable amount: fees on what the payer actually pays (docs/decisions.md 13). */
    const rowFor = (payable: number, requested: number) => {
      const payableAmount = money(payable);
      const fee = computeFee(payableAmount, feePercent);
      const usdt = rate ? usdtFigures(payableAmount, fee, rate) : undefined;
      return newOrderRow({
        id,
        merchant,
        command: cmd,
        currency: cmd.currency,
        figures: {
          amount: money(requested),
          payable: payableAmount,
          feePercent,
          fee,
          amountAfterFee: amountAfterFee('PAYIN', payableAmount, fee),
        },
        now,
        extra: {
          convertToUsdt: rate !== undefined,
          exchangeRate: rate ? toDbAmount(rate) : null,
          usdtAmount: usdt ? toDbAmount(usdt.usdtAmount) : null,
          usdtAmountAfterFee: usdt ? toDbAmount(usdt.usdtAmountAfterFee) : null,
        },
      });
    };

    if (merchant.test) {
      // A sandbox order (docs/decisions.md section 29): generated details, no requisite, no amount shift.
      if (cmd.offerId !== undefined || cmd.amount === undefined) throw new AppError('REQUISITES_NOT_FOUND');
      await assertNewExternalId(db, merchant, cmd.orderId ?? id);
      return await insertOrder(db, {
        ...rowFor(cmd.amount, cmd.amount),
        ...sandboxPaymentDetails(cmd.need, id),
      });
    }
    if (cmd.offerId === undefined && !shifting && cmd.amount !== undefined) {
      // The common case in one statement; anything it cannot do takes the transaction below.
      const created = await claim(rowFor(cmd.amount, cmd.amount), pick(cmd.amount), {
        tryLockRub: cmd.currency === 'RUB',
      });
      if (created) return created;
    }
    await assertNewExternalId(db, merchant, cmd.orderId ?? id);
    return await db.transaction(async (tx) => {
      if (cmd.offerId !== undefined) {
        if (!deps.takeOffer) throw new AppError('REQUISITES_NOT_FOUND');
        const taken = await deps.takeOffer(tx, cmd.offerId, cmd.type, id, merchant);
        if (taken.requisite.currency !== cmd.currency) throw new AppError('REQUISITES_NOT_FOUND');
        const payable = Number(taken.amount);
        checkLimits(merchant, cmd.type, payable);
        if (cmd.currency === 'RUB') await lockRubAmounts(tx, false);
        // An offer's requisite keeps its holder's limit and status like the claim's (docs/decisions.md
        // "Offers and the holder's room"); refusing rolls the offer back to open.
        const room = await claim.holderRoom(tx, taken.requisite.holderId, money(payable), cmd.currency);
        if (!room) throw new AppError('REQUISITES_NOT_FOUND');
        // A pool order's amount is the offer's (docs/decisions.md section 23).
        return insertAssignedOrder(tx, {
          ...rowFor(payable, payable),
          ...requisiteColumns(taken.requisite),
        });
      }
      const amount = cmd.amount ?? 0;
      let payable = amount;
      if (cmd.currency === 'RUB') {
        await lockRubAmounts(tx, shifting);
        if (shifting && cmd.deviation) payable = await firstFreeRubAmount(tx, amount, cmd.deviation, now);
      }
      const row = rowFor(payable, amount);
      const claimed = await claim(row, pick(payable), { tryLockRub: false, ex: tx });
      if (claimed) return claimed;
      // Every candidate held, or the next one has limits: wait for it / re-check its limits.
      const requisite = await claim.take(tx, pick(payable));
      if (!requisite) throw new AppError('REQUISITES_NOT_FOUND');
      return insertAssignedOrder(tx, { ...row, ...requisiteColumns(requisite) });
    });
  };
}
