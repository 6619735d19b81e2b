import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { newInternalId } from '../../lib/ids.js';
import { money, toDbAmount } from '../../lib/money.js';
import { cryptoMethod } from '../../modules/catalog/index.js';
import { findMerchant, type MerchantRow } from '../../modules/merchants/index.js';
import {
  type CryptoPayinCommand,
  checkLimits,
  type OrderRow,
  orderCommands,
} from '../../modules/orders/index.js';
import type { RatesService } from '../../modules/rates/index.js';
import { cryptoOrdersAwaitingQuote } from './crypto-order-reads.js';
import { ratesFor } from './crypto-payments.js';
import { type CryptoQuote, quoteCryptoOrder, withPayinMarkup } from './crypto-rules.js';
import { allocateDepositAddress } from './deposit-addresses.js';
import { sandboxDepositAddress } from './sandbox-address.js';

/** The order columns of a quote (`cryptoAmount` written with 8 decimals, docs/decisions.md section 2). */
function quoteColumns(quote: CryptoQuote) {
  return {
    cryptoAmount: quote.cryptoAmount ? quote.cryptoAmount.toFixed(8) : null,
    cryptoRate: quote.cryptoRate ? toDbAmount(quote.cryptoRate) : null,
    fee: toDbAmount(quote.fee ?? money(0)),
    amountAfterFee: toDbAmount(quote.amountAfterFee ?? money(0)),
    usdtAmount: quote.usdtAmount ? toDbAmount(quote.usdtAmount) : null,
    usdtAmountAfterFee: quote.usdtAmountAfterFee ? toDbAmount(quote.usdtAmountAfterFee) : null,
  };
}

/**
 * Crypto PAYIN creation (docs/api.md "createOrder - crypto PAYIN"; docs/decisions.md sections 6
 * and 8): a fresh deposit address and the exact amount to send, or `cryptoAmount: null` until a
 * rate exists (filled by `fillMissingAmounts`). The rate is the effective one with the merchant's
 * markup (or RATE_MARKUP_PAYIN_PERCENT), fixed on the order as `cryptoRate`.
 */
export function createCryptoPayins(deps: { database: Database; clock: Clock; rates: RatesService }) {
  const { database, clock, rates } = deps;
  const db = database.db;
  return {
    /** `createOrder` in crypto mode, from its parsed command. ORDER_ALREADY_EXISTS, limits, REQUISITES_NOT_FOUND. */
    async create(merchant: MerchantRow, cmd: CryptoPayinCommand): Promise<OrderRow> {
      const id = newInternalId();
      await orderCommands.assertNewExternalId(db, merchant, cmd.orderId ?? id);
      const feePercent = money(merchant.payinFeePercentByType[cmd.type] ?? merchant.payinFeePercent);
      const quote = quoteCryptoOrder({
        amount: cmd.amount,
        requestCurrency: cmd.requestCurrency,
        method: cmd.method,
        feePercent,
        rates: withPayinMarkup(
          await ratesFor(rates, db, cmd.method.coin),
          cmd.method.coin,
          rates.payinMarkupPercent(merchant.rateMarkupPercent),
        ),
      });
      if (quote.rubAmount) checkLimits(merchant, cmd.type, quote.rubAmount.toFixed());
      const now = new Date(clock.now());
      return db.transaction(async (tx) => {
        // A sandbox order's address is generated: no derivation index of a live key is used up.
        const deposit = merchant.test
          ? { address: sandboxDepositAddress(cmd.method, id), index: null }
          : await allocateDepositAddress(tx, cmd.method.keyNetwork, now);
        if (!deposit) throw new AppError('REQUISITES_NOT_FOUND');
        return orderCommands.insertNew(
          tx,
          {
            id,
            merchant,
            command: cmd,
            currency: cmd.requestCurrency,
            figures: {
              amount: cmd.amount,
              payable: cmd.amount,
              feePercent,
              fee: quote.fee ?? money(0),
              amountAfterFee: quote.amountAfterFee ?? money(0),
            },
            now,
            extra: { ...quoteColumns(quote), derivationIndex: deposit.index },
          },
          { pdAddress: deposit.address, pdBank: cmd.method.coin, pdHolderName: cmd.method.network },
        );
      });
    },

    /**
     * Fills `cryptoAmount` (and the USDT and RUB figures) of pending orders created without a fresh
     * rate, as soon as one exists (docs/decisions.md section 6). Returns how many were filled.
     */
    async fillMissingAmounts(): Promise<number> {
      const waiting = await cryptoOrdersAwaitingQuote(db, 200);
      let filled = 0;
      const merchants = new Map<string, MerchantRow | undefined>();
      for (const order of waiting) {
        const method = cryptoMethod(order.type);
        if (!method) continue;
        // One read per merchant, not per order (a stale spell leaves many orders of few merchants).
        if (!merchants.has(order.merchantId))
          merchants.set(order.merchantId, await findMerchant(db, order.merchantId));
        const merchant = merchants.get(order.merchantId);
        const quote = quoteCryptoOrder({
          amount: money(order.amount),
          requestCurrency: order.currency,
          method,
          feePercent: money(order.feePercent),
          rates: withPayinMarkup(
            await ratesFor(rates, db, method.coin),
            method.coin,
            rates.payinMarkupPercent(merchant?.rateMarkupPercent),
          ),
        });
        if (!quote.cryptoAmount || !quote.cryptoRate) continue;
        if (await orderCommands.setCryptoQuote(db, order.id, quoteColumns(quote), new Date(clock.now())))
          filled++;
      }
      return filled;
    },
  };
}
