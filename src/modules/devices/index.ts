/** Requisite holders' devices and their bank notifications (issue 9). */
export { devicesAdminRoutes, traderRoutes } from './devices-routes.js';
export { createDevicesService, type DevicesService } from './devices-service.js';
