import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './app.js';
import type { Config } from './config.js';
import { type PeriodicJob, startPeriodic } from './lib/periodic.js';
import { fetchProviderRates } from './modules/rates/rates-provider.js';

/**
 * Starts the background jobs of a process: the expiry sweeper (decisions.md section 5: pending PAYIN
 * orders expire within 5 s of the deadline), the webhook dispatcher (decisions.md section 11), the
 * crypto amount filler and, when configured, the rates provider refresh.
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
    startPeriodic(
      async () => {
        const filled = await services.crypto.fillMissingAmounts();
        if (filled > 0) log.info({ filled }, 'crypto amounts computed');
      },
      2000,
      (err) => log.warn({ err }, 'crypto amount fill failed'),
    ),
  ];
  const providerUrl = config.ratesProviderUrl;
  if (providerUrl) {
    jobs.push(
      startPeriodic(
        async () => services.rates.setFromProvider(await fetchProviderRates(providerUrl)),
        config.ratesProviderIntervalSeconds * 1000,
        (err) => log.warn({ err: { message: (err as Error).message } }, 'rates provider refresh failed'),
      ),
    );
  }
  services.dispatcher.start();
  return {
    async stop() {
      await Promise.all([...jobs.map((j) => j.stop()), services.dispatcher.stop()]);
    },
  };
}
