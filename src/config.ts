import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type ChainEnvSettings, chainEnvSettings, type WatchedChain } from './config-chains.js';
import { EnvSchema, type RateSourceName } from './config-schema.js';
import { randomToken } from './lib/secrets.js';
import { type Allowlist, parseAllowlist } from './platform/outbound/index.js';

export {
  type ChainEnvKey,
  type ChainEnvSettings,
  WATCHED_CHAINS,
  type WatchedChain,
} from './config-chains.js';

export { EnvSchema, RATE_SOURCE_NAMES, type RateSourceName } from './config-schema.js';

type Env = Static<typeof EnvSchema>;

/**
 * The parsed, frozen configuration. Each field comes from the variable named beside it, which
 * config-schema.ts describes (the one description of every setting); fields with no variable say
 * where they come from. Durations in seconds unless the name says otherwise.
 */
export interface Config {
  readonly env: Env['NODE_ENV']; // NODE_ENV
  readonly host: string; // HOST
  readonly port: number; // PORT
  readonly dataDir: string; // DATA_DIR, resolved
  /** DATABASE_URL; absent: embedded PostgreSQL (PGlite) in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dbPoolSize: number; // DB_POOL_SIZE
  /** ADMIN_TOKEN, or the one generated in `DATA_DIR/secrets.json` (embedded database only). */
  readonly adminToken: string;
  /** SECRET_KEY, or the one generated in `DATA_DIR/secrets.json` (embedded database only). */
  readonly secretKey: string;
  /** PUBLIC_BASE_URL (default `http://HOST:PORT`), without a trailing slash. */
  readonly publicBaseUrl: string;
  readonly logLevel: string; // LOG_LEVEL
  readonly rateMaxAgeSeconds: number; // RATE_MAX_AGE
  readonly expiryIntervalMs: number; // EXPIRY_INTERVAL_MS
  readonly runJobs: boolean; // RUN_JOBS
  readonly bodyLimitBytes: number; // BODY_LIMIT_BYTES
  readonly outboundAllowlist: Allowlist; // OUTBOUND_ALLOWLIST, parsed
  readonly webhookBatchSize: number; // WEBHOOK_BATCH_SIZE
  readonly webhookLoops: number; // WEBHOOK_LOOPS
  readonly chainWatcherToken: string | undefined; // CHAIN_WATCHER_TOKEN
  readonly ratesProviderUrl: string | undefined; // RATES_PROVIDER_URL
  readonly ratesProviderIntervalSeconds: number; // RATES_PROVIDER_INTERVAL
  readonly rateSources: readonly RateSourceName[]; // RATE_SOURCES, without repeats
  readonly rateSourcesIntervalSeconds: number; // RATE_SOURCES_INTERVAL
  readonly rateCbrMaxAgeSeconds: number; // RATE_CBR_MAX_AGE
  /** RATE_COINGECKO_URL, RATE_RAPIRA_URL, RATE_CBR_URL without a trailing slash. */
  readonly rateSourceUrls: Readonly<Record<RateSourceName, string>>;
  readonly rateMarkupPayinPercent: string; // RATE_MARKUP_PAYIN_PERCENT, decimal text
  readonly rateLimits: boolean; // RATE_LIMITS
  readonly receiptsDir: string; // RECEIPTS_DIR, default DATA_DIR/receipts
  readonly metricsToken: string | undefined; // METRICS_TOKEN
  readonly trustProxy: boolean | number | string[]; // TRUST_PROXY, parsed by parseTrustProxy
  readonly redisUrl: string | undefined; // REDIS_URL
  readonly requisiteExpiredStreak: number; // REQUISITE_EXPIRED_STREAK
  readonly appealDeadlineHours: number; // APPEAL_DEADLINE_HOURS
  readonly appealWindowDays: number; // APPEAL_WINDOW_DAYS
  readonly maxAmountDeviation: number; // MAX_AMOUNT_DEVIATION, rubles
  readonly manualCreditMaxRatio: string; // MANUAL_CREDIT_MAX_RATIO, decimal text
  readonly chainCreditMaxRatio: string; // CHAIN_CREDIT_MAX_RATIO, decimal text
  readonly chainDropAfterSeconds: number; // CHAIN_DROP_AFTER_SECONDS
  readonly rateOperatorMaxDeviation: string; // RATE_OPERATOR_MAX_DEVIATION, percent as decimal text
  readonly smsForwarderNeedsOperator: boolean; // SMS_FORWARDER_NEEDS_OPERATOR
  readonly deviceLivenessIntervalSeconds: number; // DEVICE_LIVENESS_INTERVAL
  /** LEARNED_RULES_REFRESH_MS, and BANK_MESSAGE_CORPUS_DIR resolved (undefined: the checkout's corpus). */
  readonly learnedRules: { readonly refreshMs: number; readonly corpusDir: string | undefined };
  /** CHAIN_<CHAIN>_* per chain; the admin API's values win (docs/decisions.md section 25). */
  readonly chains: Readonly<Record<WatchedChain, ChainEnvSettings>>;
  readonly formFrameAncestors: string; // FORM_FRAME_ANCESTORS
  /** RECEIPTS_S3_BUCKET with its REGION, ENDPOINT and PREFIX; unset: receipts in `receiptsDir`. */
  readonly receiptsS3:
    | { bucket: string; region: string; endpoint: string | undefined; prefix: string }
    | undefined;
  readonly schemaAuditLog: string | undefined; // SCHEMA_AUDIT_LOG
  /** True when the admin token was generated at this start (the start banner shows it). */
  readonly generatedSecrets: boolean;
  /** True when ADMIN_TOKEN was set (the start banner does not point at secrets.json then). */
  readonly adminTokenFromEnv: boolean;
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

/** The learned bank-message rules' settings (docs/decisions.md "Rules learned from the review queue"). */
function learnedRulesOf(e: Env): Config['learnedRules'] {
  const dir = e.BANK_MESSAGE_CORPUS_DIR;
  return { refreshMs: e.LEARNED_RULES_REFRESH_MS, corpusDir: dir === undefined ? undefined : resolve(dir) };
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
    learnedRules: learnedRulesOf(e),
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
    schemaAuditLog: e.SCHEMA_AUDIT_LOG,
    generatedSecrets: generated,
    adminTokenFromEnv: Boolean(e.ADMIN_TOKEN),
  });
}
