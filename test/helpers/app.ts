import { buildApp, type Services } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { App } from '../../src/http/schemas.js';
import type { Clock } from '../../src/lib/clock.js';
import type { SourceFactory } from '../../src/modules/chains/index.js';
import { parseAllowlist } from '../../src/modules/outbound/address-policy.js';
import { closeTestDatabase, testDatabase } from './database.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const CHAIN_WATCHER_TOKEN = 'test-chain-watcher-token-0123456789';

/** A complete Config for tests; no environment is read. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({
    env: 'test',
    host: '127.0.0.1',
    port: 0,
    dataDir: '/tmp/payment-orders-test',
    databaseUrl: undefined,
    dbPoolSize: 20,
    adminToken: ADMIN_TOKEN,
    secretKey: 'test-secret-key-0123456789abcdef0123456789',
    publicBaseUrl: 'https://pay.example.test',
    logLevel: 'silent',
    rateMaxAgeSeconds: 600,
    expiryIntervalMs: 200,
    runJobs: false,
    bodyLimitBytes: 1_048_576,
    generatedSecrets: false,
    outboundAllowlist: parseAllowlist('127.0.0.1'),
    webhookBatchSize: 100,
    webhookLoops: 2,
    chainWatcherToken: CHAIN_WATCHER_TOKEN,
    ratesProviderUrl: undefined,
    ratesProviderIntervalSeconds: 60,
    rateSources: [],
    rateSourcesIntervalSeconds: 60,
    rateCbrMaxAgeSeconds: 129_600,
    rateSourceUrls: {
      coingecko: 'http://127.0.0.1:9/coingecko',
      rapira: 'http://127.0.0.1:9/rapira',
      cbr: 'http://127.0.0.1:9/cbr',
    },
    rateMarkupPayinPercent: '0',
    rateLimits: false,
    receiptsDir: '/tmp/payment-orders-test/receipts',
    receiptsS3: undefined,
    formFrameAncestors: "'none'",
    requisiteExpiredStreak: 5,
    appealDeadlineHours: 24,
    appealWindowDays: 7,
    maxAmountDeviation: 1000,
    manualCreditMaxRatio: '1.0',
    chainCreditMaxRatio: '2',
    chainDropAfterSeconds: 3600,
    rateOperatorMaxDeviation: '10',
    smsForwarderNeedsOperator: false,
    deviceLivenessIntervalSeconds: 20,
    chains: {
      ethereum: {},
      bsc: {},
      tron: {},
      ton: {},
      bitcoin: {},
      litecoin: {},
    },
    metricsToken: undefined,
    trustProxy: false,
    redisUrl: undefined,
    ...overrides,
  } satisfies Config);
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
