import { buildApp, type Services } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { App } from '../../src/http/schemas.js';
import type { Clock } from '../../src/lib/clock.js';
import type { SourceFactory } from '../../src/rails/chains/index.js';
import { closeTestDatabase, testDatabase } from './database.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const CHAIN_WATCHER_TOKEN = 'test-chain-watcher-token-0123456789';

/**
 * The environment tests run with: only what differs from the schema's defaults (src/config-schema.ts),
 * so a default changes in one place. Loopback everywhere; nothing leaves the machine.
 */
const TEST_ENV: NodeJS.ProcessEnv = {
  NODE_ENV: 'test',
  PORT: '0',
  DATA_DIR: '/tmp/payment-orders-test',
  DB_POOL_SIZE: '20',
  ADMIN_TOKEN,
  SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789',
  PUBLIC_BASE_URL: 'https://pay.example.test',
  LOG_LEVEL: 'silent',
  EXPIRY_INTERVAL_MS: '200',
  RUN_JOBS: 'false',
  OUTBOUND_ALLOWLIST: '127.0.0.1',
  WEBHOOK_LOOPS: '2',
  CHAIN_WATCHER_TOKEN,
  RATE_COINGECKO_URL: 'http://127.0.0.1:9/coingecko',
  RATE_RAPIRA_URL: 'http://127.0.0.1:9/rapira',
  RATE_CBR_URL: 'http://127.0.0.1:9/cbr',
  RATE_LIMITS: 'false',
  RECEIPTS_DIR: '/tmp/payment-orders-test/receipts',
};

/** A complete Config for tests: the schema's parse of TEST_ENV, then `overrides`; no process env read. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({ ...loadConfig(TEST_ENV), ...overrides });
}

/** A clock that tests move by hand; starts at the real time. */
export function manualClock(
  start = Date.now(),
): Clock & { advance(ms: number): void; set(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    set(ms) {
      now = ms;
    },
  };
}

export interface TestApp {
  app: App;
  services: Services;
  database: Database;
  config: Config;
  /** Closes the app and the process's test database; call it from the file's `after`. */
  close(): Promise<void>;
}

/** Builds the real application over the test database. Call `close` in the file's `after` hook. */
export async function startTestApp(
  options: { config?: Partial<Config>; clock?: Clock; chainSources?: SourceFactory } = {},
): Promise<TestApp> {
  const database = await testDatabase();
  const config = testConfig(options.config);
  const { app, services } = await buildApp({
    config,
    database,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.chainSources ? { chainSources: options.chainSources } : {}),
  });
  await app.ready();
  openApps.add(app);
  return { app, services, database, config, close: () => closeAll(app) };
}

const openApps = new Set<App>();

/** Closes this app; the database goes with the last app of the process. */
async function closeAll(app: App): Promise<void> {
  openApps.delete(app);
  await app.close();
  if (openApps.size === 0) await closeTestDatabase();
}
