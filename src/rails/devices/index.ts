/**
 * Requisite holders' phones (docs/decisions.md section 24): pairing and liveness, the messages they forward
 * (SMS Gateway for Android, SmsForwarder, the native batch) through one pipeline, the review queue,
 * and the history of pre-parsed notifications.
 */

export { REVIEW_REASONS, type ReviewReason } from './credit-matching.js';
export { deviceAdminRoutes } from './device-admin-routes.js';
export { createDeviceAdmin, type DeviceAdmin } from './device-admin-service.js';
export { deviceCounts } from './device-counts.js';
export { DeviceSetupSchema } from './device-endpoint-schemas.js';
export { deviceEndpoints } from './device-endpoints.js';
export { createDeviceIngest, type DeviceIngest, type DeviceMetrics } from './device-ingest-service.js';
export { createLivenessSweep } from './device-liveness.js';
export {
  createDevicePairing,
  type DevicePairing,
  type PairingPreview,
  type PairingRequisite,
} from './device-pairing.js';
export { createDeviceReview, type DeviceReview } from './device-review-service.js';
export type { DeviceSetup } from './device-setup.js';
export { devicesHotTable } from './devices-repository.js';
export { devicesAdminRoutes, holderRoutes } from './devices-routes.js';
export { createDevicesService, type DevicesService } from './devices-service.js';
export { createHolderDesk, type HolderDesk, type MissedPaymentReport } from './holder-desk.js';
export { createRuleReview, type RuleReview } from './learned-rule-review.js';
export { learnedRuleRoutes } from './learned-rule-routes.js';
