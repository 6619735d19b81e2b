import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { OrderLifecycle } from '../../modules/orders/index.js';
import type { RatesService } from '../../modules/rates/index.js';
import { createChainTransfers } from './chain-transfers.js';
import { createCryptoKeys } from './crypto-keys.js';
import { createCryptoPayins } from './crypto-payins.js';
import { createCryptoPayments } from './crypto-payments.js';
import { orderIdsOfTx } from './tx-search.js';

/**
 * Crypto PAYIN (docs/api.md "createOrder - crypto PAYIN"; docs/decisions.md sections 6 and 8):
 * creation with a deposit address and an exact amount, confirmation by the chain watcher
 * or an operator, and the operators' keys and pool.
 */
export function createCryptoService(deps: {
  database: Database;
  clock: Clock;
  rates: RatesService;
  lifecycle: OrderLifecycle;
  /** MANUAL_CREDIT_MAX_RATIO (docs/decisions.md section 13). */
  manualCreditMaxRatio: string;
  /** CHAIN_CREDIT_MAX_RATIO (docs/decisions.md section 34). */
  chainCreditMaxRatio?: string;
}) {
  const payins = createCryptoPayins(deps);
  const payments = createCryptoPayments(deps);
  const keys = createCryptoKeys(deps);
  return {
    /** What the built-in chain watchers record (docs/decisions.md section 25), and their credit path. */
    chainTransfers: { ...createChainTransfers(deps), settle: payments.settleAwaiting },
    createPayin: payins.create,
    fillMissingAmounts: payins.fillMissingAmounts,
    chainNotification: payments.chainNotification,
    operatorConfirm: payments.operatorConfirm,
    sandboxPayment: payments.sandboxPayment,
    setXpub: keys.setXpub,
    addPoolAddresses: keys.addPoolAddresses,
    overview: keys.overview,
    /** The orders a chain transaction paid, by its hash (the operators' search). */
    ordersOfTx: (text: string) => orderIdsOfTx(deps.database.db, text),
  };
}

export type CryptoService = ReturnType<typeof createCryptoService>;
