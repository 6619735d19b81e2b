/** Prometheus metrics of one process (README "Deployment"), scraped at `GET /metrics`. */
export { createMetrics, type Metrics } from './metrics.js';
