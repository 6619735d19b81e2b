/**
 * Appeals (docs/decisions.md section 27): late-payment claims on failed fiat
 * PAYINs, from the payer's form, the merchant API and the portal; resolved by operators.
 */
export { AppealSchema, appealsAdminRoutes, appealsRoutes } from './appeals-routes.js';
export { type AppealsService, type AppealView, appealView, createAppealsService } from './appeals-service.js';
