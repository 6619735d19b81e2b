/** Prometheus metrics of one process (issue 10), scraped at `GET /metrics`. */
export { createMetrics, type Metrics } from './metrics.js';
