import type { Database } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money, toJsonAmount } from '../../lib/money.js';
import { writeAudit } from '../../platform/audit/index.js';
import { FIAT_CURRENCIES } from '../catalog/index.js';
import { findMerchant } from '../merchants/index.js';
import {
  ACCOUNTS,
  type BalanceRow,
  ledgerSums,
  listBalances,
  listEntries,
  lockBalance,
  postJournal,
} from './ledger-repository.js';

const LEDGER_CURRENCIES = new Set([...FIAT_CURRENCIES, 'USDT']);

function balanceView(b: BalanceRow) {
  return {
    currency: b.currency,
    balance: toJsonAmount(b.balance),
    reserved: toJsonAmount(b.reserved),
    available: toJsonAmount(b.balance.minus(b.reserved)),
  };
}

/** Balances and manual adjustments of merchant ledgers (docs/decisions.md sections 6 and 12). */
export function createLedgerService(deps: { database: Database }) {
  const db = deps.database.db;
  return {
    /**
     * `GET /merchant/balance/{merchant_id}` payload (docs/decisions.md section 12): figures of the main
     * currency (the merchant's first), `usdtBalance`, `allowUsdt` and `balances` per currency.
     */
    async merchantBalance(merchant: {
      id: string;
      currencies: string[];
      allowUsdt: boolean;
      test?: boolean;
    }) {
      // A test key's balance is the sandbox's, which is empty: test orders post no entries (docs/decisions.md section 29).
      const rows = merchant.test ? [] : await listBalances(db, merchant.id);
      const main = merchant.currencies[0] ?? 'RUB';
      const zero = (currency: string): BalanceRow => ({ currency, balance: money(0), reserved: money(0) });
      const mainRow = rows.find((r) => r.currency === main) ?? zero(main);
      const usdt = rows.find((r) => r.currency === 'USDT') ?? zero('USDT');
      const currencies = [...new Set([...merchant.currencies, ...rows.map((r) => r.currency)])];
      const view = balanceView(mainRow);
      return {
        merchant_id: merchant.id,
        balance: view.balance,
        reserved: view.reserved,
        available: view.available,
        currency: main,
        usdtBalance: toJsonAmount(usdt.balance),
        allowUsdt: merchant.allowUsdt,
        balances: currencies.map((c) => balanceView(rows.find((r) => r.currency === c) ?? zero(c))),
      };
    },

    /**
     * Admin adjustment: a signed amount moved between the merchant and `system:adjustments`,
     * audited. A debit may not take the available balance below zero (INSUFFICIENT_BALANCE).
     */
    async adjust(
      merchantId: string,
      input: { currency: string; amount: string | number; reason: string },
      actor: AdminActor,
    ) {
      if (!LEDGER_CURRENCIES.has(input.currency)) throw invalidField('currency', 'unknown currency');
      const text = String(input.amount);
      if (!/^-?\d{1,15}(\.\d{1,2})?$/.test(text) || money(text).isZero()) {
        throw invalidField('amount', 'must be a non-zero amount with at most 2 decimals');
      }
      const amount = money(text);
      return db.transaction(async (tx) => {
        if (!(await findMerchant(tx, merchantId))) throw new AppError('NOT_FOUND');
        const before = await lockBalance(tx, merchantId, input.currency);
        if (amount.isNegative() && before.balance.plus(amount).minus(before.reserved).isNegative()) {
          throw new AppError('INSUFFICIENT_BALANCE');
        }
        const { journalId } = await postJournal(tx, {
          kind: 'adjustment',
          memo: input.reason,
          entries: [
            { account: ACCOUNTS.merchant(merchantId), merchantId, currency: input.currency, amount },
            { account: ACCOUNTS.adjustments, currency: input.currency, amount: amount.negated() },
          ],
        });
        const after = { ...before, balance: before.balance.plus(amount) };
        await writeAudit(tx, actor, {
          action: 'ledger.adjust',
          targetType: 'merchant',
          targetId: merchantId,
          before: balanceView(before),
          after: { ...balanceView(after), amount: text, reason: input.reason, journal_id: journalId },
        });
        return { journal_id: journalId, ...balanceView(after) };
      });
    },

    /** Ledger entries of the merchant account, newest first, and the per-currency check sums. */
    async entries(merchantId: string) {
      const [rows, sums] = await Promise.all([listEntries(db, merchantId), ledgerSums(db, merchantId)]);
      return {
        entries: rows.map((r) => ({
          id: r.id,
          journal_id: r.journalId,
          currency: r.currency,
          amount: r.amount,
          kind: r.kind,
          order_id: r.orderId,
          memo: r.memo,
          created_at: r.createdAt.toISOString(),
        })),
        sums: Object.fromEntries([...sums].map(([c, s]) => [c, s.toFixed()])),
      };
    },
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
