import type { TSchema } from '@sinclair/typebox';
import { type ChainEnvKey, EnvSchema, WATCHED_CHAINS } from './config.js';

/** `CHAIN_<CHAIN>_*` (docs/decisions.md sections 25 and 34): the same six settings for each chain. */
function chainDescriptions(): Record<ChainEnvKey, string> {
  const out = {} as Record<string, string>;
  for (const chain of WATCHED_CHAINS) {
    const p = `CHAIN_${chain.toUpperCase()}_`;
    out[`${p}URL`] =
      `${chain} watcher: URL of your node or provider (README "Crypto guide"); set, the watcher runs in the worker`;
    out[`${p}API_KEY`] = `${chain} watcher: the provider's API key, if it needs one (never shown)`;
    out[`${p}CONFIRMATIONS`] =
      `${chain} watcher: confirmations before a credit (the payment's block counts as 1)`;
    out[`${p}TOKEN_CONTRACT`] = `${chain} watcher: the USDT contract or jetton master (default: mainnet's)`;
    out[`${p}POLL_SECONDS`] = `${chain} watcher: seconds between two polls (default: about the block time)`;
    out[`${p}RPS`] =
      `${chain} watcher: requests per second sent to the provider; over it 429s are waited out with backoff (default: the provider's free plan, with or without an API key; README "Crypto guide")`;
  }
  return out as Record<ChainEnvKey, string>;
}

/** What each environment variable means (the README's configuration table says the same). */
export const ENV_DESCRIPTIONS: Record<keyof typeof EnvSchema.properties, string> = {
  ...chainDescriptions(),
  PORT: 'HTTP port',
  HOST: 'address to listen on (0.0.0.0 behind a proxy or in a container)',
  DATA_DIR: 'embedded database (pgdata/), its lock file, generated secrets',
  DATABASE_URL: 'postgres://user:pass@host:5432/db: use this PostgreSQL instead of the embedded one',
  DB_POOL_SIZE: 'connections per process to PostgreSQL',
  ADMIN_TOKEN: 'bearer token of the admin API, at least 24 characters; required with DATABASE_URL',
  SECRET_KEY:
    'master key (at least 32 characters) that encrypts merchant API keys at rest (AES-256-GCM); required with DATABASE_URL; never change it without re-issuing keys',
  PUBLIC_BASE_URL: 'public address of the service, the base of form_url ({PUBLIC_BASE_URL}/form/<id>)',
  LOG_LEVEL: 'fatal error warn info debug trace silent; JSON lines with the request id',
  RATE_MAX_AGE: 'seconds after which an exchange rate counts as missing',
  RUN_JOBS: 'run the background jobs (webhook dispatcher, order expiry) in this process',
  EXPIRY_INTERVAL_MS: 'how often pending orders past their deadline are expired',
  BODY_LIMIT_BYTES: 'largest JSON body (413 PAYLOAD_TOO_LARGE above)',
  OUTBOUND_ALLOWLIST:
    'hosts or CIDRs (localhost,127.0.0.1/32) that webhook and receipt URLs may reach although not public. Unsafe in production: it lets merchants reach those addresses. For development and tests only',
  WEBHOOK_BATCH_SIZE: 'deliveries one dispatcher round claims',
  WEBHOOK_LOOPS: 'webhook deliveries in flight per process, in units of WEBHOOK_BATCH_SIZE',
  RATE_LIMITS: "the contract's rate limits (429 TOO_MANY_REQUESTS); counters in memory per process",
  CHAIN_WATCHER_TOKEN:
    'bearer token of POST /chain/notifications (at least 24 characters); unset: the endpoint refuses every call',
  RATES_PROVIDER_URL:
    'an HTTP JSON source of exchange rates polled every RATES_PROVIDER_INTERVAL seconds (default 60): {"rates":[{"base":"USDT","quote":"RUB","rate":"92.5"}]} or {"USDT/RUB":"92.5","BTC/RUB":"9100000"}',
  RATE_SOURCES:
    'exchange rate sources to poll, comma-separated: coingecko (USDT, BTC, LTC, ETH, BNB, TON in RUB), rapira (USDT/RUB), cbr (Central Bank of Russia daily fiat rates); empty (default): none, nothing is fetched from the internet (README "Exchange rates")',
  RATE_SOURCES_INTERVAL: 'seconds between two polls of the market sources (the CBR is read at most hourly)',
  RATE_CBR_MAX_AGE:
    'seconds a CBR daily rate counts as fresh (default 129600: 36 h); market sources use RATE_MAX_AGE',
  RATE_COINGECKO_URL: 'base URL of the CoinGecko public API (a mirror, or a loopback fake in tests)',
  RATE_RAPIRA_URL: "base URL of Rapira's public API",
  RATE_CBR_URL: "base URL of the Central Bank of Russia's site (scripts/XML_daily.asp)",
  RATE_MARKUP_PAYIN_PERCENT:
    "crypto PAYIN rate markup, percent below 50 (default 0): the coin's RUB rate is lowered by it, so the client sends more coins for the same RUB; a merchant's rate_markup_percent wins",
  RECEIPTS_DIR: 'receipt files (names from our ids, never from uploads); with S3, only the upload spool',
  RECEIPTS_S3_BUCKET:
    'keep receipts in this S3-compatible bucket instead; RECEIPTS_S3_REGION (us-east-1), RECEIPTS_S3_ENDPOINT (for MinIO, Ceph, Yandex Object Storage...: path-style), RECEIPTS_S3_PREFIX (receipts/); credentials from the standard AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY',
  REDIS_URL:
    'redis://host:6379: rate-limit counters shared by every process (without it each process counts alone; if Redis goes away each process falls back to its own counters)',
  TRUST_PROXY:
    "behind a reverse proxy: true, a hop count, or the proxies' addresses/CIDRs (10.0.0.0/8); the client IP (rate limits, audit) then comes from X-Forwarded-For",
  METRICS_TOKEN: 'bearer token required by GET /metrics; unset: open (serve it on an internal network only)',
  REQUISITE_EXPIRED_STREAK: 'a requisite whose last N orders all expired unpaid is disabled automatically',
  APPEAL_DEADLINE_HOURS:
    'hours operators have to resolve a late-payment appeal (its deadline; the queue is sorted by it)',
  APPEAL_WINDOW_DAYS: 'days after a PAYIN failed during which the payer or merchant may still open an appeal',
  MAX_AMOUNT_DEVIATION:
    "largest amountUp / amountDown of a request and of a merchant's defaults, in rubles (400 VALIDATION_ERROR naming the field above it): bounds the window amount disambiguation searches",
  MANUAL_CREDIT_MAX_RATIO:
    'a credit by hand (operator confirmation of a crypto order, late payment, assigning a reported transaction) may total at most cryptoAmount times this; above it only an admin, with a reason, audited with both amounts. Chain reports are credited as received',
  CHAIN_CREDIT_MAX_RATIO:
    "a chain credit (built-in watcher or POST /chain/notifications) whose total received is above cryptoAmount times this, or whose RUB value is above the order's RUB amount times this, goes to the review queue (GET /admin/crypto, the console) instead of being credited",
  CHAIN_DROP_AFTER_SECONDS:
    'a transfer the provider no longer knows (replaced, reorged out) is re-checked with growing intervals for this long, then marked dropped',
  RATE_OPERATOR_MAX_DEVIATION:
    "percent an operator rate may differ from the fresh sources' median; above it only an admin with a reason (audited with both numbers). Without a fresh source, per-pair sanity bounds apply",
  SMS_FORWARDER_NEEDS_OPERATOR:
    'true: bank messages forwarded by SmsForwarder (its body is not signed) wait in the review queue instead of confirming orders by themselves',
  DEVICE_LIVENESS_INTERVAL:
    "seconds between two liveness sweeps: a quiet device's requisites stop getting orders (stale, 3-10 min) or are paused (offline, over 10 min)",
  FORM_FRAME_ANCESTORS:
    "who may embed the payment form in a frame: 'none', 'self' or merchant origins (https://shop.example https://m.shop.example)",
  NODE_ENV: 'production, development or test',
  RATES_PROVIDER_INTERVAL: 'seconds between two polls of RATES_PROVIDER_URL',
  RECEIPTS_S3_REGION: 'region of RECEIPTS_S3_BUCKET',
  RECEIPTS_S3_ENDPOINT:
    'URL of an S3-compatible service (MinIO, Ceph, Yandex Object Storage...): path-style addressing',
  RECEIPTS_S3_PREFIX: 'key prefix of receipt objects in RECEIPTS_S3_BUCKET',
};

function constraint(schema: TSchema): string {
  const s = schema as Record<string, unknown>;
  const parts: string[] = [];
  if (Array.isArray(s.anyOf))
    parts.push(`one of ${(s.anyOf as Array<{ const: unknown }>).map((x) => x.const).join(', ')}`);
  else if (s.type === 'integer')
    parts.push(
      `integer${s.minimum !== undefined ? ` >= ${s.minimum}` : ''}${s.maximum !== undefined ? ` <= ${s.maximum}` : ''}`,
    );
  else if (s.type === 'boolean') parts.push('true or false');
  if (typeof s.minLength === 'number' && s.minLength > 1) parts.push(`at least ${s.minLength} characters`);
  return parts.join('; ');
}

/**
 * The text of `.env.example`, generated from the configuration schema (config.ts): every variable
 * with what it means, its constraint and its default; those with a default are commented out.
 * `npm run env:example` writes it; a test keeps the file equal to this.
 */
export function envExample(): string {
  const out = [
    '# Every setting of the service, generated from its configuration schema (src/config.ts) by',
    '# `npm run env:example`. A bad value stops the start with a message naming the variable.',
    '',
  ];
  for (const [name, schema] of Object.entries(EnvSchema.properties) as Array<
    [keyof typeof EnvSchema.properties, TSchema]
  >) {
    const s = schema as Record<string, unknown>;
    out.push(`# ${ENV_DESCRIPTIONS[name]}`);
    const rule = constraint(schema);
    if (rule) out.push(`# (${rule})`);
    out.push(s.default !== undefined ? `# ${name}=${String(s.default)}` : `# ${name}=`);
    out.push('');
  }
  return out.join('\n');
}
