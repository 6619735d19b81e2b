import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './app.js';
import type { Config } from './config.js';
import { type PeriodicJob, startPeriodic } from './lib/periodic.js';

/**
 * Starts the background jobs of a process: the expiry sweeper (decisions.md section 5: pending PAYIN
 * orders expire within 5 s of the deadline) and the webhook dispatcher (decisions.md section 11).
 * Safe to run in several processes at once.
 */
export function startJobs(
  services: Services,
  config: Config,
  log: FastifyBaseLogger,
): { stop(): Promise<void> } {
  const jobs: PeriodicJob[] = [
    startPeriodic(
      async () => {
        const expired = await services.orders.expireDue();
        if (expired > 0) log.info({ expired }, 'expired pending orders');
      },
      config.expiryIntervalMs,
      (err) => log.warn({ err }, 'expiry sweep failed'),
    ),
  ];
  services.dispatcher.start();
  return {
    async stop() {
      await Promise.all([...jobs.map((j) => j.stop()), services.dispatcher.stop()]);
    },
  };
}
