import type { Decimal } from 'decimal.js';
import type { Executor } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { type CryptoMethod, cryptoMethod } from '../../modules/catalog/index.js';
import type { OrderRow } from '../../modules/orders/index.js';
import type { RatesService } from '../../modules/rates/index.js';
import type { CryptoRates } from './crypto-rules.js';

// What a crypto credit checks before it moves money (crypto-payments.ts): the manual credit cap
// (docs/decisions.md section 13), the rates it may use, the order's RUB amount (section 34).

/** A credit by hand (operator confirmation, late payment, assigning a reported transfer). */
export interface ManualCredit {
  orderId: string;
  operator: AdminActor;
  reason: string | null;
}

/**
 * A manual credit above the limit (docs/decisions.md section 13): only the `admin` role, and only with a reason;
 * else 403 FORBIDDEN naming `received_amount`, or VALIDATION_ERROR naming `reason`.
 */
export function assertMayCreditAbove(manual: ManualCredit, received: Decimal, limit: Decimal): void {
  if (manual.operator.role !== undefined && manual.operator.role !== 'admin') {
    throw new AppError('FORBIDDEN', [
      {
        field: 'received_amount',
        problem: `a total of ${received.toFixed()} is above ${limit.toFixed()} (cryptoAmount x MANUAL_CREDIT_MAX_RATIO): only an admin may credit more, with a reason`,
      },
    ]);
  }
  if (!manual.reason) {
    throw invalidField('reason', `is required to credit ${received.toFixed()}, above ${limit.toFixed()}`);
  }
}

/** The order's amount in RUB: its own amount in RUB mode, else its RUB equivalent at creation. */
export function orderRubAmount(order: OrderRow): Decimal | undefined {
  if (order.currency === 'RUB') return money(order.amount);
  const rub = money(order.amountAfterFee).plus(order.fee ?? 0);
  return rub.gt(0) ? rub : undefined;
}

export function methodOf(order: OrderRow): CryptoMethod {
  const method = cryptoMethod(order.type);
  if (!method) throw new AppError('UNSUPPORTED_PAYMENT_TYPE');
  return method;
}

/** The coin/RUB and USDT/RUB rates a crypto credit may use, fresh or missing. */
export async function ratesFor(rates: RatesService, ex: Executor, coin: string): Promise<CryptoRates> {
  // One after the other: `ex` may be a transaction's one client, which runs one query at a time.
  const coinRub = coin === 'USDT' ? undefined : await rates.fresh(ex, coin, 'RUB');
  const usdtRub = await rates.fresh(ex, 'USDT', 'RUB');
  return { coinRub, usdtRub };
}
