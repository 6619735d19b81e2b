/**
 * The merchants' ledger (docs/decisions.md section 6): a double-entry journal per merchant and
 * currency with running balances, and the holds of payouts. Other modules post through these
 * functions inside their own transactions; the tables are this module's.
 */
export {
  type AccountLine,
  type AccountPeriod,
  accountBalance,
  accountStatementLines,
  accountSumsByKind,
} from './account-books.js';
export { balanceRoutes } from './balance-routes.js';
export { ledgerAdminRoutes } from './ledger-admin-routes.js';
export {
  activeHoldSums,
  balancesHotTable,
  createHold,
  type Journal,
  ledgerSums,
  lockBalance,
  postJournal,
  postPayinCredit,
  settleHold,
} from './ledger-repository.js';
export { createLedgerService, type LedgerService } from './ledger-service.js';
export {
  STATEMENT_CSV_COLUMNS,
  type StatementLine,
  type StatementPeriod,
  statementLines,
} from './statement.js';
