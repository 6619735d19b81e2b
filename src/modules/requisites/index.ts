/**
 * The requisites pool (docs/decisions.md section 7): its table, operators' management, and the pick
 * query the orders module composes into a new order's claim (the pool's SQL stays here).
 */

export {
  type HolderRequisite,
  holderOfRequisite,
  lockRequisiteHolders,
  requisitesOfHolder,
  setRequisitesHolder,
} from './requisite-holders.js';
export {
  assignEachSql,
  holderRequisiteIdsSql,
  type PickCandidate,
  type PickedRequisite,
  type PickLock,
  type PickOperands,
  pickRequisiteQuery,
  recordAssignment,
  requisitesHotTable,
} from './requisite-pick.js';
export { requisitesAdminRoutes } from './requisites-admin-routes.js';
export {
  countRequisites,
  disableRequisites,
  findRequisite,
  findRequisites,
  learnMask,
  type PauseReason,
  pauseRequisites,
  type RequisiteRow,
  requisiteMasks,
  resumeRequisites,
} from './requisites-repository.js';
export {
  createRequisitesService,
  maskAddress,
  type RequisiteInput,
  type RequisiteLoad,
  type RequisitesService,
} from './requisites-service.js';
