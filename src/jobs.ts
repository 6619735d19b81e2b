import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './composition.js';
import type { Config } from './config.js';
import { OUTBOX_CHANNEL } from './db/database.js';
import { type PeriodicJob, startPeriodic } from './lib/periodic.js';
import { makePrivateDir } from './lib/private-dir.js';
import { holdersHotTable } from './modules/holders/index.js';
import { balancesHotTable } from './modules/ledger/index.js';
import { fetchProviderRates } from './modules/rates/index.js';
import { requisitesHotTable } from './modules/requisites/index.js';
import { vacuumHotTables } from './platform/upkeep/index.js';
import { devicesHotTable } from './rails/devices/index.js';

/** Spool files older than this are left-overs: an upload or download takes at most a minute. */
const SPOOL_MAX_AGE_MS = 3600_000;

/** A job's error logged by its message only. */
const failed = (log: FastifyBaseLogger, what: string) => (err: unknown) =>
  log.warn({ err: { message: (err as Error).message } }, what);

/** Payments: the expiry sweep, crypto amounts to fill, quiet devices' requisites, the chain watchers. */
function paymentJobs(services: Services, config: Config, log: FastifyBaseLogger): PeriodicJob[] {
  return [
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
    // Quiet devices' requisites stop getting orders, then are paused (docs/decisions.md section 24).
    startPeriodic(
      async () => {
        const swept = await services.sweepLiveness();
        if (swept.paused > 0 || swept.flagged > 0)
          log.info(swept, 'device liveness: requisites paused, orders flagged');
      },
      config.deviceLivenessIntervalSeconds * 1000,
      failed(log, 'device liveness sweep failed'),
    ),
    // Built-in chain watchers (docs/decisions.md section 25): each enabled chain at its poll interval,
    // one process at a time.
    startPeriodic(
      () =>
        services.chains.runDue((chain, err) =>
          log.warn({ chain, err: { message: (err as Error).message } }, 'chain watcher loop failed'),
        ),
      1000,
      failed(log, 'chain watchers failed'),
    ),
  ];
}

/** Files: left-over receipt spool files, and the embedded database's file modes. */
function fileJobs(services: Services, config: Config, log: FastifyBaseLogger): PeriodicJob[] {
  const jobs = [
    // Spool files a crash left between receiving an upload and keeping or discarding it
    // (docs/decisions.md section 16): at start and every 10 minutes, those older than an hour
    // (uploads in flight are younger).
    startPeriodic(
      async () => {
        const removed = await services.receipts.sweepSpool(SPOOL_MAX_AGE_MS);
        if (removed > 0) log.info({ removed }, 'left-over receipt spool files removed');
      },
      10 * 60_000,
      failed(log, 'receipt spool sweep failed'),
    ),
  ];
  // The embedded database's new files come with mode 0666 (PGlite ignores the umask): keep every
  // file 0600 (docs/decisions.md section 21); DATA_DIR is 0700, so none is reachable by others in between.
  if (services.database.directory)
    jobs.push(
      startPeriodic(
        () => makePrivateDir(config.dataDir),
        10 * 60_000,
        failed(log, 'data directory permissions'),
      ),
    );
  return jobs;
}

/** The tables whose rows every order or payment rewrites, by their owning modules. */
const HOT_TABLES = [requisitesHotTable, balancesHotTable, holdersHotTable, devicesHotTable];

/**
 * The hot tables' vacuum (docs/decisions.md "The requisite claim under load"): every second on
 * PostgreSQL, one process at a time, tables past their dead rows only; every 10 s on PGlite, whose one
 * connection the vacuum holds for its few milliseconds.
 */
function databaseJobs(services: Services, log: FastifyBaseLogger): PeriodicJob[] {
  const { database } = services;
  return [
    startPeriodic(
      () => database.withLock('hot-tables-vacuum', () => vacuumHotTables(database, HOT_TABLES)),
      database.kind === 'postgres' ? 1000 : 10_000,
      failed(log, 'hot tables vacuum failed'),
    ),
  ];
}

/** Exchange rates: the sources' poll and, when configured, the generic provider. */
function rateJobs(services: Services, config: Config, log: FastifyBaseLogger): PeriodicJob[] {
  // Rate sources (docs/decisions.md section 22): one process polls at a time; staleness is logged on change.
  let stale = 0;
  const jobs = [
    startPeriodic(
      async () => {
        const run = await services.database.withLock('rate-sources', () => services.rateRefresh.refresh());
        if (run.skipped) return;
        for (const o of run.value.sources)
          if (o.ok === false) log.warn({ source: o.source, error: o.error }, 'rate source failed: skipped');
        const now = await services.rates.stalePairs();
        if (now !== stale) log[now > 0 ? 'warn' : 'info']({ stalePairs: now }, 'exchange rates: stale pairs');
        stale = now;
      },
      config.rateSourcesIntervalSeconds * 1000,
      failed(log, 'rate sources refresh failed'),
    ),
  ];
  const providerUrl = config.ratesProviderUrl;
  if (providerUrl) {
    jobs.push(
      startPeriodic(
        async () => services.rates.setFromProvider(await fetchProviderRates(providerUrl)),
        config.ratesProviderIntervalSeconds * 1000,
        failed(log, 'rates provider refresh failed'),
      ),
    );
  }
  return jobs;
}

/**
 * Starts the background jobs of a process: the expiry sweeper (docs/decisions.md section 5: pending PAYIN
 * orders expire within 5 s of the deadline), the webhook dispatcher (docs/decisions.md section 11), the
 * crypto amount filler, the receipt spool sweep, the hot tables' vacuum and, when configured, the rates provider refresh.
 * Safe to run in several processes at once.
 */
export function startJobs(
  services: Services,
  config: Config,
  log: FastifyBaseLogger,
): { stop(): Promise<void> } {
  const jobs: PeriodicJob[] = [
    ...paymentJobs(services, config, log),
    ...fileJobs(services, config, log),
    ...rateJobs(services, config, log),
    ...databaseJobs(services, log),
  ];
  services.dispatcher.start();
  // A committed outbox row wakes the dispatcher at once (PostgreSQL NOTIFY from any process); its
  // own poll is the fallback.
  const listening = services.database
    .listen(OUTBOX_CHANNEL, () => services.dispatcher.wake())
    .catch((err) => {
      log.warn({ err: { message: (err as Error).message } }, 'outbox notifications unavailable: polling');
      return async () => undefined;
    });
  return {
    async stop() {
      await (await listening)();
      await Promise.all([...jobs.map((j) => j.stop()), services.dispatcher.stop()]);
    },
  };
}
