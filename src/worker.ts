import pino from 'pino';
import { createServices } from './composition.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { startJobs } from './jobs.js';
import { maskLogRecord } from './lib/log-mask.js';
import { openReceiptStorage } from './rails/receipts/index.js';

/**
 * `npm run worker`: a process that runs only the background jobs (webhook dispatcher, expiry sweeper)
 * on the configured PostgreSQL, beside API processes started with RUN_JOBS=false. Any number may run.
 */
async function main(): Promise<void> {
  // Receipt spool files this process writes are its user's alone.
  process.umask(0o077);
  const config = loadConfig();
  if (!config.databaseUrl) {
    throw new ConfigError(
      'A separate worker needs DATABASE_URL: the embedded database belongs to one process (npm start runs the jobs itself).',
    );
  }
  const log = pino({
    level: config.logLevel,
    base: { pid: process.pid, role: 'worker' },
    formatters: { log: (record) => maskLogRecord(record) as Record<string, unknown> },
  });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: config.dbPoolSize });
  const receiptStorage = await openReceiptStorage(config);
  const services = createServices({
    config,
    database,
    clock: { now: () => Date.now() },
    log,
    receiptStorage,
  });
  const jobs = startJobs(services, config, log);
  log.info('worker started');
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    log.info('worker stopping');
    await jobs.stop();
    await services.guard.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

main().catch((err: unknown) => {
  process.stderr.write(`Cannot start the worker: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
