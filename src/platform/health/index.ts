/** `GET /healthz`, `GET /readyz` and `GET /metrics`. */
export { healthRoutes } from './health-routes.js';
