import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  type ChainEnvSettings,
  chainEnvSchema,
  chainEnvSettings,
  type WatchedChain,
} from './config-chains.js';
import { randomToken } from './lib/secrets.js';
import { type Allowlist, parseAllowlist } from './modules/outbound/index.js';

export {
  type ChainEnvKey,
  type ChainEnvSettings,
  WATCHED_CHAINS,
  type WatchedChain,
} from './config-chains.js';

/** The rate sources of issue 20 section 2 (README "Exchange rates"), as RATE_SOURCES names them. */
export const RATE_SOURCE_NAMES = ['coingecko', 'rapira', 'cbr'] as const;
export type RateSourceName = (typeof RATE_SOURCE_NAMES)[number];
const RATE_SOURCE_RE = `(${RATE_SOURCE_NAMES.join('|')})`;

/**
 * Every environment variable the service reads, in one schema (README "Configuration" documents each).
 * Parsed once at start by `loadConfig`; the result is frozen.
 */
export const EnvSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('production'), Type.Literal('development'), Type.Literal('test')], {
    default: 'development',
  }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DB_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 24 })),
  SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  RATE_MAX_AGE: Type.Integer({ minimum: 1, default: 600 }),
  EXPIRY_INTERVAL_MS: Type.Integer({ minimum: 50, maximum: 5000, default: 1000 }),
  RUN_JOBS: Type.Boolean({ default: true }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1048576 }),
  OUTBOUND_ALLOWLIST: Type.String({ default: '' }),
  WEBHOOK_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  WEBHOOK_LOOPS: Type.Integer({ minimum: 1, maximum: 64, default: 4 }),
  CHAIN_WATCHER_TOKEN: Type.Optional(Type.String({ minLength: 24 })),
  RATES_PROVIDER_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  RATES_PROVIDER_INTERVAL: Type.Integer({ minimum: 5, maximum: 86_400, default: 60 }),
  RATE_SOURCES: Type.String({ pattern: `^(${RATE_SOURCE_RE}(,${RATE_SOURCE_RE})*)?$`, default: '' }),
  RATE_SOURCES_INTERVAL: Type.Integer({ minimum: 10, maximum: 86_400, default: 60 }),
  RATE_CBR_MAX_AGE: Type.Integer({ minimum: 3600, maximum: 7 * 86_400, default: 129_600 }),
  RATE_COINGECKO_URL: Type.String({ pattern: '^https?://[^\\s]+$', default: 'https://api.coingecko.com' }),
  RATE_RAPIRA_URL: Type.String({ pattern: '^https?://[^\\s]+$', default: 'https://api.rapira.net' }),
  RATE_CBR_URL: Type.String({ pattern: '^https?://[^\\s]+$', default: 'https://www.cbr.ru' }),
  RATE_MARKUP_PAYIN_PERCENT: Type.String({ pattern: '^(\\d|[1-4]\\d)(\\.\\d{1,4})?$', default: '0' }),
  RATE_LIMITS: Type.Boolean({ default: true }),
  RECEIPTS_DIR: Type.Optional(Type.String({ minLength: 1 })),
  RECEIPTS_S3_BUCKET: Type.Optional(Type.String({ minLength: 3, maxLength: 63 })),
  RECEIPTS_S3_REGION: Type.String({ minLength: 1, default: 'us-east-1' }),
  RECEIPTS_S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  RECEIPTS_S3_PREFIX: Type.String({ default: 'receipts/' }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  TRUST_PROXY: Type.String({ default: 'false' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  REQUISITE_EXPIRED_STREAK: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
  MAX_AMOUNT_DEVIATION: Type.Integer({ minimum: 0, maximum: 100_000, default: 1000 }),
  MANUAL_CREDIT_MAX_RATIO: Type.String({ pattern: '^\\d{1,3}(\\.\\d{1,4})?$', default: '1.0' }),
  CHAIN_CREDIT_MAX_RATIO: Type.String({ pattern: '^\\d{1,3}(\\.\\d{1,4})?$', default: '2' }),
  CHAIN_DROP_AFTER_SECONDS: Type.Integer({ minimum: 60, maximum: 30 * 86_400, default: 3600 }),
  RATE_OPERATOR_MAX_DEVIATION: Type.String({ pattern: '^\\d{1,2}(\\.\\d{1,2})?$', default: '10' }),
  SMS_FORWARDER_NEEDS_OPERATOR: Type.Boolean({ default: false }),
  DEVICE_LIVENESS_INTERVAL: Type.Integer({ minimum: 5, maximum: 300, default: 20 }),
  APPEAL_DEADLINE_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 24 }),
  APPEAL_WINDOW_DAYS: Type.Integer({ minimum: 1, maximum: 180, default: 7 }),
  ...chainEnvSchema(),
  FORM_FRAME_ANCESTORS: Type.String({
    default: "'none'",
    pattern: "^('none'|'self'|https://[^\\s;,]+)( ('self'|https://[^\\s;,]+))*$",
  }),
});

type Env = Static<typeof EnvSchema>;

/** The parsed, frozen configuration. Durations in seconds unless the name says otherwise. */
export interface Config {
  readonly env: Env['NODE_ENV'];
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** Absent: embedded PostgreSQL (PGlite) in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dbPoolSize: number;
  readonly adminToken: string;
  readonly secretKey: string;
  /** Base of `form_url`, without a trailing slash. */
  readonly publicBaseUrl: string;
  readonly logLevel: string;
  /** Seconds after which an exchange rate counts as missing (docs/decisions.md section 6). */
  readonly rateMaxAgeSeconds: number;
  readonly expiryIntervalMs: number;
  /** Whether this process runs the background jobs (expiry sweeper, later the webhook dispatcher). */
  readonly runJobs: boolean;
  readonly bodyLimitBytes: number;
  /**
   * Hosts and CIDRs that merchant URLs (webhooks, receipt URLs) may reach although not public.
   * For development and tests only: in production it opens our network to merchants.
   */
  readonly outboundAllowlist: Allowlist;
  /** Deliveries a dispatcher round claims, and parallel rounds per process. */
  readonly webhookBatchSize: number;
  readonly webhookLoops: number;
  /** Bearer token of `POST /chain/notifications`; unset: the endpoint refuses every call. */
  readonly chainWatcherToken: string | undefined;
  /** Optional HTTP JSON source of exchange rates, polled every `ratesProviderIntervalSeconds`. */
  readonly ratesProviderUrl: string | undefined;
  readonly ratesProviderIntervalSeconds: number;
  /** Rate sources polled (RATE_SOURCES, default none: nothing leaves the machine unless configured). */
  readonly rateSources: readonly RateSourceName[];
  /** Seconds between two polls of the market sources (the CBR: at most hourly). */
  readonly rateSourcesIntervalSeconds: number;
  /** Seconds a CBR daily rate counts as fresh (default 36 h: it changes once a working day). */
  readonly rateCbrMaxAgeSeconds: number;
  /** Base URLs of the sources (tests point them at loopback fakes). */
  readonly rateSourceUrls: Readonly<Record<RateSourceName, string>>;
  /** Crypto PAYIN markup percent (a merchant's own setting wins), a decimal string. */
  readonly rateMarkupPayinPercent: string;
  /** Whether the contract's rate limits apply (docs/api.md "Limits"); off only for load tests. */
  readonly rateLimits: boolean;
  /** Directory of receipt files (default `<DATA_DIR>/receipts`); with S3, only the upload spool. */
  readonly receiptsDir: string;
  /** Bearer token of `GET /metrics`; unset: open (keep it on an internal port or network). */
  readonly metricsToken: string | undefined;
  /** Fastify `trustProxy`: false, true, a hop count, or a list of proxy addresses/CIDRs. */
  readonly trustProxy: boolean | number | string[];
  /** Redis for rate-limit counters shared by all processes; unset: in-process memory. */
  readonly redisUrl: string | undefined;
  /** A requisite whose last N orders all expired unpaid is disabled automatically (issue 9). */
  readonly requisiteExpiredStreak: number;
  /** Hours operators have to resolve an appeal (issue 21 section 4): its deadline. */
  readonly appealDeadlineHours: number;
  /** Days after a PAYIN failed during which a late-payment claim may still be made. */
  readonly appealWindowDays: number;
  /**
   * Largest `amountUp` / `amountDown` (and merchant default), in rubles: bounds the disambiguation
   * window searched under the amounts lock (issue 17 item 4).
   */
  readonly maxAmountDeviation: number;
  /**
   * A manual credit (operator confirmation, late payment, assigned transaction) may credit at most
   * `cryptoAmount` times this; above it only an admin with a reason (issue 17 item 1). Decimal text.
   */
  readonly manualCreditMaxRatio: string;
  /**
   * A chain credit (watcher or chain notification) whose total is above `cryptoAmount` times this,
   * or whose RUB value is above the order's RUB amount times this, goes to review instead
   * (docs/decisions.md section 34). Decimal text.
   */
  readonly chainCreditMaxRatio: string;
  /** Seconds a transfer the provider no longer knows is re-checked before it is marked dropped. */
  readonly chainDropAfterSeconds: number;
  /** Percent an operator rate may differ from the fresh sources' median without an admin's reason. */
  readonly rateOperatorMaxDeviation: string;
  /**
   * SmsForwarder's credits (its body is not signed: weaker evidence) wait for an operator instead
   * of confirming orders by themselves (issue 19 section 1).
   */
  readonly smsForwarderNeedsOperator: boolean;
  /** How often the device liveness sweep runs, in seconds (issue 19 section 4). */
  readonly deviceLivenessIntervalSeconds: number;
  /** Built-in chain watchers' settings from `CHAIN_<CHAIN>_*` (issue 20); the admin API's values win. */
  readonly chains: Readonly<Record<WatchedChain, ChainEnvSettings>>;
  /** CSP `frame-ancestors` of the payment form: `'none'`, or the merchant origins that may embed it. */
  readonly formFrameAncestors: string;
  /** When set, receipts are kept in this S3-compatible bucket instead of `receiptsDir`. */
  readonly receiptsS3:
    | { bucket: string; region: string; endpoint: string | undefined; prefix: string }
    | undefined;
  /** True when the admin token was generated at this start (the start banner shows it). */
  readonly generatedSecrets: boolean;
}

/** `TRUST_PROXY`: "false" / "true", a hop count, or a comma list of proxy IPs or CIDRs. */
export function parseTrustProxy(text: string): boolean | number | string[] {
  const t = text.trim().toLowerCase();
  if (t === '' || t === 'false' || t === '0') return false;
  if (t === 'true') return true;
  if (/^\d+$/.test(t)) return Number(t);
  return t
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A configuration error: names the variable; the start stops with this message. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const BOOLEAN_WORDS: Record<string, boolean> = {
  true: true,
  '1': true,
  yes: true,
  false: false,
  '0': false,
  no: false,
};

/** One problem per variable: `NAME (got "value"): what is wrong`; secrets never echoed. */
function describeProblem(name: string, raw: Record<string, unknown>, message: string): string {
  const shown =
    name in raw && !/TOKEN|SECRET|DATABASE_URL|API_KEY/.test(name) ? ` (got "${String(raw[name])}")` : '';
  return `${name}${shown}: ${message}`;
}

/** Joins every problem into one ConfigError, so a start reports them all at once. */
function configError(problems: readonly string[]): ConfigError {
  return new ConfigError(
    problems.length === 1
      ? `Invalid ${problems[0]}`
      : `${problems.length} environment variables are missing or invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  );
}

/**
 * Reads the variables of the schema from `env`, converting numbers and booleans, applying defaults.
 * Throws one ConfigError listing every invalid variable (each named once, with the first problem).
 */
export function parseEnv(env: NodeJS.ProcessEnv): Env {
  const { env: parsed, problems } = readEnv(env);
  if (problems.length > 0) throw configError(problems);
  return parsed;
}

function readEnv(env: NodeJS.ProcessEnv): { env: Env; problems: string[]; raw: Record<string, unknown> } {
  const raw: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(EnvSchema.properties)) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    const type = (schema as { type?: string }).type;
    if (type === 'integer') raw[key] = /^-?\d+$/.test(value.trim()) ? Number(value) : value;
    else if (type === 'boolean') raw[key] = BOOLEAN_WORDS[value.trim().toLowerCase()] ?? value;
    else raw[key] = value;
  }
  const withDefaults = Value.Default(EnvSchema, raw);
  const problems: string[] = [];
  const named = new Set<string>();
  for (const error of Value.Errors(EnvSchema, withDefaults)) {
    const name = error.path.replace(/^\//, '').split('/')[0] || 'environment';
    if (named.has(name)) continue;
    named.add(name);
    problems.push(describeProblem(name, raw, error.message));
  }
  return { env: withDefaults as Env, problems, raw };
}

interface StoredSecrets {
  adminToken: string;
  secretKey: string;
}

/**
 * For the embedded database only: a missing ADMIN_TOKEN / SECRET_KEY is generated once and kept in
 * `<DATA_DIR>/secrets.json` (mode 0600) so that restarts keep the same keys.
 */
function embeddedSecrets(dataDir: string): { secrets: StoredSecrets; generated: boolean } {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredSecrets;
    return { secrets: stored, generated: false };
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets = { adminToken: randomToken(32), secretKey: randomToken(32) };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return { secrets, generated: true };
}

/**
 * Parses the environment once and returns a frozen Config.
 * Throws ConfigError (naming the variable) on a bad value, or when a real database is configured
 * without ADMIN_TOKEN / SECRET_KEY (only the embedded default may generate them).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { env: e, problems } = readEnv(env);
  const dataDir = resolve(e.DATA_DIR ?? './data');
  let outboundAllowlist: Allowlist = parseAllowlist('');
  try {
    outboundAllowlist = parseAllowlist(e.OUTBOUND_ALLOWLIST ?? '');
  } catch (err) {
    if (!problems.some((p) => p.startsWith('OUTBOUND_ALLOWLIST')))
      problems.push(`OUTBOUND_ALLOWLIST: ${(err as Error).message}`);
  }
  // With a real database nothing may be generated: every missing secret is named with the rest.
  if (e.DATABASE_URL) {
    for (const name of ['ADMIN_TOKEN', 'SECRET_KEY'] as const)
      if (!e[name] && !problems.some((p) => p.startsWith(name)))
        problems.push(`${name}: required when DATABASE_URL is set (generate one with: openssl rand -hex 32)`);
  }
  if (problems.length > 0) throw configError(problems);
  let adminToken = e.ADMIN_TOKEN;
  let secretKey = e.SECRET_KEY;
  let generated = false;
  if (!adminToken || !secretKey) {
    const stored = embeddedSecrets(dataDir);
    adminToken ??= stored.secrets.adminToken;
    secretKey ??= stored.secrets.secretKey;
    generated = stored.generated;
  }
  const publicBaseUrl = (
    e.PUBLIC_BASE_URL ?? `http://${e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST}:${e.PORT}`
  ).replace(/\/+$/, '');
  return Object.freeze({
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    dbPoolSize: e.DB_POOL_SIZE,
    adminToken,
    secretKey,
    publicBaseUrl,
    logLevel: e.LOG_LEVEL,
    rateMaxAgeSeconds: e.RATE_MAX_AGE,
    expiryIntervalMs: e.EXPIRY_INTERVAL_MS,
    runJobs: e.RUN_JOBS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    outboundAllowlist,
    webhookBatchSize: e.WEBHOOK_BATCH_SIZE,
    webhookLoops: e.WEBHOOK_LOOPS,
    chainWatcherToken: e.CHAIN_WATCHER_TOKEN,
    ratesProviderUrl: e.RATES_PROVIDER_URL,
    ratesProviderIntervalSeconds: e.RATES_PROVIDER_INTERVAL,
    rateSources: Object.freeze([...new Set(e.RATE_SOURCES.split(',').filter(Boolean))] as RateSourceName[]),
    rateSourcesIntervalSeconds: e.RATE_SOURCES_INTERVAL,
    rateCbrMaxAgeSeconds: e.RATE_CBR_MAX_AGE,
    rateSourceUrls: Object.freeze({
      coingecko: e.RATE_COINGECKO_URL.replace(/\/+$/, ''),
      rapira: e.RATE_RAPIRA_URL.replace(/\/+$/, ''),
      cbr: e.RATE_CBR_URL.replace(/\/+$/, ''),
    }),
    rateMarkupPayinPercent: e.RATE_MARKUP_PAYIN_PERCENT,
    rateLimits: e.RATE_LIMITS,
    receiptsDir: resolve(e.RECEIPTS_DIR ?? join(dataDir, 'receipts')),
    formFrameAncestors: e.FORM_FRAME_ANCESTORS,
    requisiteExpiredStreak: e.REQUISITE_EXPIRED_STREAK,
    appealDeadlineHours: e.APPEAL_DEADLINE_HOURS,
    appealWindowDays: e.APPEAL_WINDOW_DAYS,
    maxAmountDeviation: e.MAX_AMOUNT_DEVIATION,
    manualCreditMaxRatio: e.MANUAL_CREDIT_MAX_RATIO,
    chainCreditMaxRatio: e.CHAIN_CREDIT_MAX_RATIO,
    chainDropAfterSeconds: e.CHAIN_DROP_AFTER_SECONDS,
    rateOperatorMaxDeviation: e.RATE_OPERATOR_MAX_DEVIATION,
    smsForwarderNeedsOperator: e.SMS_FORWARDER_NEEDS_OPERATOR,
    deviceLivenessIntervalSeconds: e.DEVICE_LIVENESS_INTERVAL,
    chains: chainEnvSettings(e as Record<string, unknown>),
    metricsToken: e.METRICS_TOKEN,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    redisUrl: e.REDIS_URL,
    receiptsS3: e.RECEIPTS_S3_BUCKET
      ? {
          bucket: e.RECEIPTS_S3_BUCKET,
          region: e.RECEIPTS_S3_REGION,
          endpoint: e.RECEIPTS_S3_ENDPOINT,
          prefix: e.RECEIPTS_S3_PREFIX,
        }
      : undefined,
    generatedSecrets: generated,
  });
}
