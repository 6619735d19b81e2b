/**
 * Holders (docs/decisions.md "Holders' money"): the people behind requisites and phones, what each
 * holds for the operator as a ledger sum, their settlements and admins' corrections, and their
 * accounts on their own page (docs/decisions.md "The holder's own page"). The lifecycle's success
 * hook `creditOnSuccess` is wired in the composition root.
 */
export { createHolderUsers, type HolderUser, type HolderUsers } from './holder-users.js';
export { holdersAdminRoutes } from './holders-admin-routes.js';
export { holderClaimGate } from './holders-exposure.js';
export { createHolderOwnActions, type HolderActor, type HolderOwnActions } from './holders-own.js';
export { findHolder, type HolderRow, holdersHotTable } from './holders-repository.js';
export {
  assignmentConflict,
  HOLDER_ACCOUNTS,
  HOLDER_KINDS,
  type HolderBooks,
  parseAmount,
} from './holders-rules.js';
export {
  createHoldersService,
  type HoldersService,
  type SettlementProofs,
  type SucceededOrder,
} from './holders-service.js';
export { HOLDER_CURRENCY } from './holders-standing.js';
