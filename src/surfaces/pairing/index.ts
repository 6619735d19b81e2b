/**
 * The pairing link's page (docs/decisions.md "The pairing page"): what a requisite holder opens on
 * the phone to connect it, over the devices rail's pairing service.
 */
export { type PairingRouteDeps, pairingRoutes } from './pairing-routes.js';
