/**
 * Every environment variable the service and its CLI read, in one schema: its type, bounds, default
 * and what it means (`description`, markdown). This is the one place a setting is described:
 * `.env.example` and the README's configuration table are generated from it (`npm run env:example`,
 * kept equal by test/ops/env-example.test.ts), and `loadConfig` (config.ts) parses it once at start.
 */
import { Type } from '@sinclair/typebox';
import { chainEnvSchema } from './config-chains.js';

/** The market rate sources (README "Exchange rates"), as RATE_SOURCES names them. */
export const RATE_SOURCE_NAMES = ['coingecko', 'rapira', 'cbr'] as const;
export type RateSourceName = (typeof RATE_SOURCE_NAMES)[number];
const RATE_SOURCE_RE = `(${RATE_SOURCE_NAMES.join('|')})`;
const URL_PATTERN = '^https?://[^\\s]+$';

export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'HTTP port' }),
  HOST: Type.String({
    minLength: 1,
    default: '127.0.0.1',
    description: 'address to listen on (`0.0.0.0` behind a proxy or in a container)',
  }),
  DATA_DIR: Type.String({
    minLength: 1,
    default: './data',
    description: 'embedded database (`pgdata/`), its lock file, generated secrets',
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description: '`postgres://user:pass@host:5432/db`: use this PostgreSQL instead of the embedded one',
    }),
  ),
  DB_POOL_SIZE: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 10,
    description:
      'connections per process to PostgreSQL; the requisite claim has a pool of its own, of half this size, whose connections open only when claims run',
  }),
  ADMIN_TOKEN: Type.Optional(
    Type.String({
      minLength: 24,
      description:
        'bearer token of the admin API, at least 24 characters; required with `DATABASE_URL` (the embedded default generates one and keeps it in `DATA_DIR/secrets.json`); the CLI reads it too',
    }),
  ),
  SECRET_KEY: Type.Optional(
    Type.String({
      minLength: 32,
      description:
        'master key (at least 32 characters) that encrypts merchant API keys and other secrets at rest (AES-256-GCM); required with `DATABASE_URL` (the embedded default generates one); never change it without re-issuing keys',
    }),
  ),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: URL_PATTERN,
      description:
        'public address of the service, the base of `form_url` (`{PUBLIC_BASE_URL}/form/<id>`); default `http://HOST:PORT`',
    }),
  ),
  ADMIN_URL: Type.Optional(
    Type.String({
      pattern: URL_PATTERN,
      description:
        'CLI only (`npm run admin`): where the service answers; default `http://HOST:PORT` (`127.0.0.1` when `HOST` is `0.0.0.0`)',
    }),
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    {
      default: 'info',
      description: '`fatal` `error` `warn` `info` `debug` `trace` `silent`; JSON lines with the request id',
    },
  ),
  RATE_MAX_AGE: Type.Integer({
    minimum: 1,
    default: 600,
    description: 'seconds after which an exchange rate counts as missing',
  }),
  RUN_JOBS: Type.Boolean({
    default: true,
    description: 'run the background jobs (webhook dispatcher, order expiry) in this process',
  }),
  EXPIRY_INTERVAL_MS: Type.Integer({
    minimum: 50,
    maximum: 5000,
    default: 1000,
    description: 'milliseconds between two sweeps expiring pending orders past their deadline',
  }),
  BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    default: 1048576,
    description: 'largest JSON body (413 `PAYLOAD_TOO_LARGE` above)',
  }),
  OUTBOUND_ALLOWLIST: Type.String({
    default: '',
    description:
      'hosts or CIDRs (`localhost,127.0.0.1/32`) that webhook and receipt URLs may reach although not public. **Unsafe in production**: it lets merchants reach those addresses. For development and tests only',
  }),
  WEBHOOK_BATCH_SIZE: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: 'deliveries one dispatcher round claims',
  }),
  WEBHOOK_LOOPS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 4,
    description: 'webhook deliveries in flight per process, in units of `WEBHOOK_BATCH_SIZE`',
  }),
  RATE_LIMITS: Type.Boolean({
    default: true,
    description:
      "the contract's rate limits (429 `TOO_MANY_REQUESTS`); off only for load tests. Counters in Redis with `REDIS_URL`, else in memory per process",
  }),
  CHAIN_WATCHER_TOKEN: Type.Optional(
    Type.String({
      minLength: 24,
      description:
        'bearer token of `POST /chain/notifications` (at least 24 characters); unset: the endpoint refuses every call',
    }),
  ),
  RATES_PROVIDER_URL: Type.Optional(
    Type.String({
      pattern: URL_PATTERN,
      description:
        'an HTTP JSON source of exchange rates polled every `RATES_PROVIDER_INTERVAL` seconds: `{"rates":[{"base":"USDT","quote":"RUB","rate":"92.5"}]}` or `{"USDT/RUB":"92.5","BTC/RUB":"9100000"}`; one more source in the median (named `provider`)',
    }),
  ),
  RATES_PROVIDER_INTERVAL: Type.Integer({
    minimum: 5,
    maximum: 86_400,
    default: 60,
    description: 'seconds between two polls of `RATES_PROVIDER_URL`',
  }),
  RATE_SOURCES: Type.String({
    pattern: `^(${RATE_SOURCE_RE}(,${RATE_SOURCE_RE})*)?$`,
    default: '',
    description:
      'exchange rate sources to poll, comma-separated: `coingecko` (USDT, BTC, LTC, ETH, BNB, TON in RUB), `rapira` (USDT/RUB), `cbr` (Central Bank of Russia daily fiat rates); empty: none, nothing is fetched from the internet (README "Exchange rates")',
  }),
  RATE_SOURCES_INTERVAL: Type.Integer({
    minimum: 10,
    maximum: 86_400,
    default: 60,
    description: 'seconds between two polls of the market sources (the CBR is read at most hourly)',
  }),
  RATE_CBR_MAX_AGE: Type.Integer({
    minimum: 3600,
    maximum: 7 * 86_400,
    default: 129_600,
    description: 'seconds a CBR daily rate counts as fresh (36 h); market sources use `RATE_MAX_AGE`',
  }),
  RATE_COINGECKO_URL: Type.String({
    pattern: URL_PATTERN,
    default: 'https://api.coingecko.com',
    description:
      'base URL of the CoinGecko public API (a mirror or proxy; tests point it at a loopback fake)',
  }),
  RATE_RAPIRA_URL: Type.String({
    pattern: URL_PATTERN,
    default: 'https://api.rapira.net',
    description: "base URL of Rapira's public API",
  }),
  RATE_CBR_URL: Type.String({
    pattern: URL_PATTERN,
    default: 'https://www.cbr.ru',
    description: "base URL of the Central Bank of Russia's site (`scripts/XML_daily.asp`)",
  }),
  RATE_MARKUP_PAYIN_PERCENT: Type.String({
    pattern: '^(\\d|[1-4]\\d)(\\.\\d{1,4})?$',
    default: '0',
    description:
      "crypto PAYIN rate markup, percent below 50: the coin's RUB rate is lowered by it, so the client sends more coins for the same rubles; a merchant's `rate_markup_percent` wins",
  }),
  RECEIPTS_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'receipt files (names from our ids, never from uploads), default `DATA_DIR/receipts`; with S3, only the upload spool',
    }),
  ),
  RECEIPTS_S3_BUCKET: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 63,
      description:
        'keep receipts in this S3-compatible bucket instead; credentials from the standard `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`',
    }),
  ),
  RECEIPTS_S3_REGION: Type.String({
    minLength: 1,
    default: 'us-east-1',
    description: 'region of `RECEIPTS_S3_BUCKET`',
  }),
  RECEIPTS_S3_ENDPOINT: Type.Optional(
    Type.String({
      pattern: URL_PATTERN,
      description:
        'URL of an S3-compatible service (MinIO, Ceph, Yandex Object Storage...): path-style addressing',
    }),
  ),
  RECEIPTS_S3_PREFIX: Type.String({
    default: 'receipts/',
    description: 'key prefix of receipt objects in `RECEIPTS_S3_BUCKET`',
  }),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description:
        'bearer token required by `GET /metrics`; unset: open (serve it on an internal network only)',
    }),
  ),
  TRUST_PROXY: Type.String({
    default: 'false',
    description:
      "behind a reverse proxy: `true`, a hop count, or the proxies' addresses/CIDRs (`10.0.0.0/8`); the client IP (rate limits, audit) then comes from `X-Forwarded-For`",
  }),
  REDIS_URL: Type.Optional(
    Type.String({
      pattern: '^rediss?://',
      description:
        '`redis://host:6379`: rate-limit counters shared by every process (without it each process counts alone; if Redis goes away each process falls back to its own counters)',
    }),
  ),
  REQUISITE_EXPIRED_STREAK: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 5,
    description: 'a requisite whose last N orders all expired unpaid is disabled automatically',
  }),
  MAX_AMOUNT_DEVIATION: Type.Integer({
    minimum: 0,
    maximum: 100_000,
    default: 1000,
    description:
      "largest `amountUp` / `amountDown` of a request and of a merchant's defaults, in rubles (400 `VALIDATION_ERROR` naming the field above it): bounds the window amount disambiguation searches",
  }),
  MANUAL_CREDIT_MAX_RATIO: Type.String({
    pattern: '^\\d{1,3}(\\.\\d{1,4})?$',
    default: '1.0',
    description:
      'a credit by hand (operator confirmation of a crypto order, late payment, assigning a reported transaction) may total at most `cryptoAmount` times this; above it only an `admin`, with a reason, audited with both amounts. Chain reports are credited as received, up to `CHAIN_CREDIT_MAX_RATIO`',
  }),
  CHAIN_CREDIT_MAX_RATIO: Type.String({
    pattern: '^\\d{1,3}(\\.\\d{1,4})?$',
    default: '2',
    description:
      "a chain credit (the built-in watchers or `POST /chain/notifications`) whose total received is above `cryptoAmount` times this, or whose RUB value at the order's rate is above the order's RUB amount times this, is held for review (`outcome: review`, with a reason, in `GET /admin/crypto` and the console) instead of credited",
  }),
  CHAIN_DROP_AFTER_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 30 * 86_400,
    default: 3600,
    description:
      'a transfer the provider no longer knows (replaced, reorged out) is re-checked with growing pauses (one poll, doubling, at most 10 min) for this long, then marked `dropped`',
  }),
  RATE_OPERATOR_MAX_DEVIATION: Type.String({
    pattern: '^\\d{1,2}(\\.\\d{1,2})?$',
    default: '10',
    description:
      "percent an operator rate may differ from the fresh sources' median; above it only an `admin`, with a `reason`, audited with both numbers; without a fresh source each pair's sanity band refuses absurd values",
  }),
  SMS_FORWARDER_NEEDS_OPERATOR: Type.Boolean({
    default: false,
    description:
      '`true`: bank messages forwarded by SmsForwarder (its body is not signed) wait in the review queue instead of confirming orders by themselves',
  }),
  LEARNED_RULES_REFRESH_MS: Type.Integer({
    minimum: 0,
    maximum: 60000,
    default: 2000,
    description:
      'milliseconds a process keeps its copy of the active bank-message rules learned from the review queue; a rule switched on or off in another process reads within this time, without a restart',
  }),
  BANK_MESSAGE_CORPUS_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "folder of the bank-message corpus (one JSON file per bank) a learned rule is checked against before it is switched on; unset: the checkout's `test/fixtures/bank-messages/corpus`",
    }),
  ),
  DEVICE_LIVENESS_INTERVAL: Type.Integer({
    minimum: 5,
    maximum: 300,
    default: 20,
    description:
      "seconds between liveness sweeps of holders' phones: a quiet phone's requisites stop getting orders (stale, 3-10 min) or are paused (offline, over 10 min)",
  }),
  APPEAL_DEADLINE_HOURS: Type.Integer({
    minimum: 1,
    maximum: 720,
    default: 24,
    description:
      'hours operators have to resolve a late-payment appeal (its deadline; the queue is sorted by it)',
  }),
  APPEAL_WINDOW_DAYS: Type.Integer({
    minimum: 1,
    maximum: 180,
    default: 7,
    description: 'days after a PAYIN failed during which the payer or merchant may still open an appeal',
  }),
  ...chainEnvSchema(),
  FORM_FRAME_ANCESTORS: Type.String({
    default: "'none'",
    pattern: "^('none'|'self'|https://[^\\s;,]+)( ('self'|https://[^\\s;,]+))*$",
    description:
      "who may embed the payment form in a frame: `'none'`, `'self'` or merchant origins (`https://shop.example https://m.shop.example`)",
  }),
  SCHEMA_AUDIT_LOG: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'tests only: a file where every 200 answer that does not match its declared response schema is logged (one JSON line per answer)',
    }),
  ),
  NODE_ENV: Type.Union([Type.Literal('production'), Type.Literal('development'), Type.Literal('test')], {
    default: 'development',
    description: '`production`, `development` or `test`',
  }),
});
