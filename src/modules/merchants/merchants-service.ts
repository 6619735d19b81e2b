import { CACHE_CHANNEL, type Database, type Executor, notify } from '../../db/database.js';
import type { AdminActor } from '../../http/request-context.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import { randomToken, type SecretBox, sha256Hex } from '../../lib/secrets.js';
import { writeAudit } from '../../platform/audit/index.js';
import { type Allowlist, parseAllowlist } from '../../platform/outbound/index.js';
import { CRYPTO_TYPES, FIAT_CURRENCIES, FIAT_TYPES } from '../catalog/index.js';
import {
  type ApiKeyView,
  apiKeyView,
  LAST_USED_RESOLUTION_MS,
  listApiKeys,
  touchApiKey,
} from './api-key-list.js';
import { keyDigestCache } from './key-digest-cache.js';
import { type BrandingInput, brandingToColumns } from './merchant-branding.js';
import {
  findActiveKeyCiphertext,
  findMerchant,
  findMerchantByKeyDigest,
  findMerchantForUpdate,
  insertApiKey,
  insertMerchant,
  type KeyMode,
  listMerchants,
  MerchantExistsError,
  type MerchantRow,
  type NewMerchantRow,
  revokeApiKeys,
  updateMerchant,
} from './merchants-repository.js';

/** Tells every process, on commit, to drop cached keys (PostgreSQL NOTIFY). */
export async function notifyCaches(ex: Executor): Promise<void> {
  await notify(ex, CACHE_CHANNEL);
}

/** Merchant settings as the admin API takes them (docs/api.md "Admin API", `POST /admin/merchants`; branding, docs/decisions.md section 31). */
export interface MerchantSettingsInput extends BrandingInput {
  currencies?: string[];
  payment_types?: string[];
  payin_fee_percent?: number | string;
  payin_fee_percent_by_type?: Record<string, number | string>;
  payout_fee_percent?: number | string;
  allow_usdt?: boolean;
  default_amount_up?: number;
  default_amount_down?: number;
  limits?: Record<string, { min?: number | string; max?: number | string }>;
  order_ttl_seconds?: number;
  crypto_order_ttl_seconds?: number;
  payin_rate_limit?: number;
  settlement?: 'fiat' | 'usdt';
  /** Crypto PAYIN rate markup percent, 0 to 49.9999; null: the service default (RATE_MARKUP_PAYIN_PERCENT). */
  rate_markup_percent?: number | string | null;
  enabled?: boolean;
}

/** The admin view of a merchant (never contains a key). */
export function merchantView(m: MerchantRow) {
  return {
    merchant_id: m.id,
    enabled: m.enabled,
    currencies: m.currencies,
    payment_types: m.paymentTypes,
    payin_fee_percent: m.payinFeePercent,
    payin_fee_percent_by_type: m.payinFeePercentByType,
    payout_fee_percent: m.payoutFeePercent,
    allow_usdt: m.allowUsdt,
    default_amount_up: m.defaultAmountUp,
    default_amount_down: m.defaultAmountDown,
    limits: m.limits,
    order_ttl_seconds: m.orderTtlSeconds,
    crypto_order_ttl_seconds: m.cryptoOrderTtlSeconds,
    payin_rate_limit: m.payinRateLimitPerSecond,
    settlement: m.settlement,
    rate_markup_percent: m.rateMarkupPercent,
    display_name: m.displayName,
    logo_url: m.logoUrl,
    return_url: m.returnUrl,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

export type MerchantView = ReturnType<typeof merchantView>;

const ALL_TYPES = new Set([...FIAT_TYPES, ...CRYPTO_TYPES]);

function percent(field: string, value: number | string): string {
  const text = String(value);
  if (!/^\d{1,2}(\.\d{1,4})?$/.test(text)) throw invalidField(field, 'must be a percent from 0 to 99.9999');
  return money(text).toFixed();
}

function limitValue(field: string, value: number | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d{1,15}(\.\d{1,8})?$/.test(text)) throw invalidField(field, 'must be a non-negative number');
  return money(text).toFixed();
}

/**
 * Validates settings and maps them to columns; only the fields present are returned.
 * `maxAmountDeviation` caps the default disambiguation window (rubles, MAX_AMOUNT_DEVIATION).
 * Throws VALIDATION_ERROR naming the field.
 */
export function settingsToColumns(
  input: MerchantSettingsInput,
  maxAmountDeviation = Number.POSITIVE_INFINITY,
  allowlist: Allowlist = parseAllowlist(''),
): Partial<NewMerchantRow> {
  const out: Partial<NewMerchantRow> = brandingToColumns(input, allowlist);
  if (input.currencies !== undefined) {
    const bad = input.currencies.find((c) => !FIAT_CURRENCIES.includes(c));
    if (bad !== undefined) throw invalidField('currencies', `unknown currency ${bad}`);
    if (input.currencies.length === 0) throw invalidField('currencies', 'must not be empty');
    out.currencies = [...new Set(input.currencies)];
  }
  if (input.payment_types !== undefined) {
    const bad = input.payment_types.find((t) => !ALL_TYPES.has(t));
    if (bad !== undefined) throw invalidField('payment_types', `unknown type ${bad}`);
    out.paymentTypes = [...new Set(input.payment_types)];
  }
  if (input.payin_fee_percent !== undefined)
    out.payinFeePercent = percent('payin_fee_percent', input.payin_fee_percent);
  if (input.payin_fee_percent_by_type !== undefined) {
    const byType: Record<string, string> = {};
    for (const [type, value] of Object.entries(input.payin_fee_percent_by_type)) {
      if (!ALL_TYPES.has(type)) throw invalidField('payin_fee_percent_by_type', `unknown type ${type}`);
      byType[type] = percent(`payin_fee_percent_by_type.${type}`, value);
    }
    out.payinFeePercentByType = byType;
  }
  if (input.payout_fee_percent !== undefined)
    out.payoutFeePercent = percent('payout_fee_percent', input.payout_fee_percent);
  if (input.allow_usdt !== undefined) out.allowUsdt = input.allow_usdt;
  for (const field of ['default_amount_up', 'default_amount_down'] as const) {
    const value = input[field];
    if (value !== undefined && value > maxAmountDeviation)
      throw invalidField(field, `must be at most ${maxAmountDeviation} (MAX_AMOUNT_DEVIATION)`);
  }
  if (input.default_amount_up !== undefined) out.defaultAmountUp = input.default_amount_up;
  if (input.default_amount_down !== undefined) out.defaultAmountDown = input.default_amount_down;
  if (input.limits !== undefined) {
    const limits: Record<string, { min?: string; max?: string }> = {};
    for (const [type, l] of Object.entries(input.limits)) {
      if (!ALL_TYPES.has(type) && type !== 'payout') throw invalidField('limits', `unknown type ${type}`);
      const min = limitValue(`limits.${type}.min`, l.min);
      const max = limitValue(`limits.${type}.max`, l.max);
      if (min !== undefined && max !== undefined && money(min).gt(max))
        throw invalidField(`limits.${type}`, 'min > max');
      limits[type] = { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
    }
    out.limits = limits;
  }
  if (input.order_ttl_seconds !== undefined) out.orderTtlSeconds = input.order_ttl_seconds;
  if (input.crypto_order_ttl_seconds !== undefined)
    out.cryptoOrderTtlSeconds = input.crypto_order_ttl_seconds;
  if (input.payin_rate_limit !== undefined) out.payinRateLimitPerSecond = input.payin_rate_limit;
  if (input.settlement !== undefined) out.settlement = input.settlement;
  if (input.rate_markup_percent !== undefined) {
    const m = input.rate_markup_percent;
    if (m !== null && (!/^\d{1,2}(\.\d{1,4})?$/.test(String(m)) || money(String(m)).gte(50)))
      throw invalidField('rate_markup_percent', 'must be a percent from 0 to 49.9999, or null');
    out.rateMarkupPercent = m === null ? null : money(String(m)).toFixed();
  }
  if (input.enabled !== undefined) out.enabled = input.enabled;
  return out;
}

export interface MerchantsServiceDeps {
  database: Database;
  secretBox: SecretBox;
  clock: Clock;
  /** How long a key lookup is cached, ms; bounds how long another process may accept a rotated key. */
  keyCacheMs?: number;
  /** Cap of the default amount deviations (MAX_AMOUNT_DEVIATION, rubles). */
  maxAmountDeviation?: number;
  /** OUTBOUND_ALLOWLIST: private hosts a `return_url` or `logo_url` may name anyway. */
  allowlist?: Allowlist;
}

/** The longest an old key may live on after a rotation: 7 days. */
export const MAX_KEY_GRACE_SECONDS = 7 * 86_400;

/** How every sandbox key starts (docs/decisions.md section 29). */
export const TEST_KEY_PREFIX = 'test_';

/** A new API key of a mode for the merchant (shown once): stored as its digest and its ciphertext. */
async function issueKey(
  secretBox: SecretBox,
  ex: Parameters<typeof insertApiKey>[0],
  merchantId: string,
  mode: KeyMode = 'live',
): Promise<string> {
  // A test key says what it is (Stripe's sk_test_ habit): one look at a config tells the mode.
  const apiKey = mode === 'test' ? `${TEST_KEY_PREFIX}${randomToken(32)}` : randomToken(32);
  await insertApiKey(ex, merchantId, sha256Hex(apiKey), secretBox.seal(apiKey), mode);
  return apiKey;
}

/**
 * The merchant of a key digest (keyDigestCache over the merchants table), and the keys page's "last
 * used" mark written off the request's path.
 */
function createKeyLookup(deps: MerchantsServiceDeps) {
  const { database, clock } = deps;
  const lastNoted = new Map<string, number>();

  /**
   * Records that a key authenticated (the keys page's "last used"), at most once a minute per key
   * and process, off the request's path: a failed write loses only that minute's mark.
   */
  function noteKeyUse(keyDigest: string, now: number): void {
    if (now - (lastNoted.get(keyDigest) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    if (lastNoted.size > 10_000) lastNoted.clear();
    lastNoted.set(keyDigest, now);
    touchApiKey(database.db, keyDigest, new Date(now)).catch(() => undefined);
  }

  return keyDigestCache<MerchantRow>({
    read: (keyDigest) => findMerchantByKeyDigest(database.db, keyDigest),
    onFound: (keyDigest, now) => noteKeyUse(keyDigest, now),
    now: () => clock.now(),
    ttlMs: deps.keyCacheMs ?? 1000,
  });
}

/**
 * Issues a new key of `mode` and revokes the merchant's others of that mode, at once or after
 * `graceSeconds` (0..MAX_KEY_GRACE_SECONDS; docs/decisions.md section 28); audited. NOT_FOUND,
 * VALIDATION_ERROR for a grace out of range.
 */
async function rotateKey(
  deps: MerchantsServiceDeps,
  merchantId: string,
  actor: AdminActor,
  graceSeconds: number,
  mode: KeyMode,
) {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_KEY_GRACE_SECONDS)
    throw invalidField('grace_seconds', `an integer from 0 to ${MAX_KEY_GRACE_SECONDS}`);
  const graceUntil = graceSeconds > 0 ? new Date(deps.clock.now() + graceSeconds * 1000) : undefined;
  const apiKey = await deps.database.db.transaction(async (tx) => {
    if (!(await findMerchantForUpdate(tx, merchantId))) throw new AppError('NOT_FOUND');
    await revokeApiKeys(tx, merchantId, mode, graceUntil);
    const key = await issueKey(deps.secretBox, tx, merchantId, mode);
    await notifyCaches(tx);
    await writeAudit(tx, actor, {
      action: 'merchant.rotate_key',
      targetType: 'merchant',
      targetId: merchantId,
      after: { grace_seconds: graceSeconds, mode },
    });
    return key;
  });
  return {
    merchant_id: merchantId,
    api_key: apiKey,
    mode,
    previous_key_valid_until: graceUntil?.toISOString() ?? null,
  };
}

/**
 * Merchants and their API keys. Keys are 32 random bytes (hex), shown once, stored as SHA-256 digest
 * (lookup) and AES-256-GCM ciphertext (webhook signing) (docs/decisions.md section 4).
 */
export function createMerchantsService(deps: MerchantsServiceDeps) {
  const { database, secretBox, clock } = deps;
  const db = database.db;
  const lookup = createKeyLookup(deps);

  return {
    /**
     * Creates a merchant with defaults (currencies ["RUB"], every fiat type, fees 0, TTL 900 s) and
     * its first API key. Throws ALREADY_EXISTS for a taken id, VALIDATION_ERROR for bad settings.
     */
    async create(merchantId: string, input: MerchantSettingsInput, actor: AdminActor) {
      const columns = settingsToColumns(input, deps.maxAmountDeviation, deps.allowlist);
      try {
        return await db.transaction(async (tx) => {
          const merchant = await insertMerchant(tx, {
            currencies: ['RUB'],
            paymentTypes: [...FIAT_TYPES],
            ...columns,
            id: merchantId,
          });
          const apiKey = await issueKey(secretBox, tx, merchantId);
          const view = merchantView(merchant);
          await writeAudit(tx, actor, {
            action: 'merchant.create',
            targetType: 'merchant',
            targetId: merchantId,
            after: view,
          });
          return { ...view, api_key: apiKey };
        });
      } catch (err) {
        if (err instanceof MerchantExistsError) throw new AppError('ALREADY_EXISTS');
        throw err;
      }
    },

    async get(merchantId: string): Promise<MerchantView> {
      const m = await findMerchant(db, merchantId);
      if (!m) throw new AppError('NOT_FOUND');
      return merchantView(m);
    },

    async list(): Promise<MerchantView[]> {
      return (await listMerchants(db)).map(merchantView);
    },

    /** Changes settings (and `enabled`); audited with before/after. */
    async update(merchantId: string, input: MerchantSettingsInput, actor: AdminActor): Promise<MerchantView> {
      const columns = settingsToColumns(input, deps.maxAmountDeviation, deps.allowlist);
      const view = await db.transaction(async (tx) => {
        const before = await findMerchantForUpdate(tx, merchantId);
        if (!before) throw new AppError('NOT_FOUND');
        const after = await updateMerchant(tx, merchantId, columns);
        if (!after) throw new AppError('NOT_FOUND');
        const afterView = merchantView(after);
        await notifyCaches(tx);
        await writeAudit(tx, actor, {
          action: 'merchant.update',
          targetType: 'merchant',
          targetId: merchantId,
          before: merchantView(before),
          after: afterView,
        });
        return afterView;
      });
      lookup.clear();
      return view;
    },

    /**
     * Issues a new key (shown once; it signs webhooks from now on). The old key is refused at once,
     * or with `graceSeconds` (0..MAX_KEY_GRACE_SECONDS; docs/decisions.md section 28) still accepted until then, so a
     * deploy can switch keys without downtime. `mode: 'test'` does the same for the sandbox key
     * (issued on the first call). VALIDATION_ERROR for a grace out of range.
     */
    async rotateKey(merchantId: string, actor: AdminActor, graceSeconds = 0, mode: KeyMode = 'live') {
      const rotated = await rotateKey(deps, merchantId, actor, graceSeconds, mode);
      lookup.clear();
      return rotated;
    },

    /**
     * The merchant of an active key given its SHA-256 digest, cached for `keyCacheMs`
     * (rotation in this process clears the cache at once).
     */
    findByKeyDigest: (keyDigest: string): Promise<MerchantRow | undefined> => lookup.find(keyDigest),

    /** The merchant's keys for the portal: prefix, mode, status, created, last used, grace. */
    async keys(merchantId: string): Promise<ApiKeyView[]> {
      const now = clock.now();
      return (await listApiKeys(db, merchantId)).map((row) => apiKeyView(row, now, secretBox.open));
    },

    /**
     * The merchant's current API key of a mode in clear, to sign its webhooks (a test order's with
     * the test key); undefined when it has none.
     */
    async currentApiKey(merchantId: string, mode: KeyMode = 'live'): Promise<string | undefined> {
      const sealed = await findActiveKeyCiphertext(db, merchantId, mode);
      return sealed === undefined ? undefined : secretBox.open(sealed);
    },

    /** Drops cached key lookups (after changes made by another process). */
    invalidateCache(): void {
      lookup.clear();
    },
  };
}

export type MerchantsService = ReturnType<typeof createMerchantsService>;
