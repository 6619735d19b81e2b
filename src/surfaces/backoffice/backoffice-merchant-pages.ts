import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { CRYPTO_TYPES, FIAT_TYPES } from '../../modules/catalog/index.js';
import type { MerchantSettingsInput } from '../../modules/merchants/index.js';
import { Field, FormBody, IdParams } from '../../platform/sessions/index.js';
import { needs, userOf } from './backoffice-session.js';
import { confirmFirst } from './console-confirm.js';
import { act, withFlash } from './console-messages.js';
import { type Form, render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

const list = (v: string | undefined) =>
  str(v)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
/** The payment types a merchant may be given, as checkboxes on its page. */
const allTypes = [...FIAT_TYPES, ...CRYPTO_TYPES];
const int = (v: string | undefined) => (str(v) === undefined ? undefined : Number.parseInt(String(v), 10));

/**
 * The settings form's named fields (the merchants service checks each value); the checkboxes
 * `pt_<type>` and the limits `limit_min_<type>`, `limit_max_<type>` come as further fields.
 */
const SETTINGS_FIELDS = {
  currencies: Field(500),
  payment_types_shown: Field(10),
  payin_fee_percent: Field(20),
  payout_fee_percent: Field(20),
  allow_usdt: Field(10),
  default_amount_up: Field(20),
  default_amount_down: Field(20),
  order_ttl_seconds: Field(20),
  payin_rate_limit: Field(20),
  settlement: Field(10),
  display_name: Field(),
  logo_url: Field(),
  return_url: Field(),
  limits_shown: Field(10),
};

/**
 * Merchant settings from the console form (docs/decisions.md section 32: fields, not JSON): payment types as
 * checkboxes (`pt_<type>=on`), limits as a min and a max per payment type (`limit_min_<type>`, `limit_max_<type>`;
 * empty: none of its own). The merchants service validates every value (VALIDATION_ERROR naming it).
 */
function settingsFromForm(form: Form): MerchantSettingsInput {
  const out: MerchantSettingsInput = {};
  const currencies = list(form.currencies);
  if (currencies) out.currencies = currencies;
  if (form.payment_types_shown) out.payment_types = allTypes.filter((type) => form[`pt_${type}`] === 'on');
  if (str(form.payin_fee_percent)) out.payin_fee_percent = String(str(form.payin_fee_percent));
  if (str(form.payout_fee_percent)) out.payout_fee_percent = String(str(form.payout_fee_percent));
  // A checkbox after its hidden "off": the form parser keeps the last value, the box's state.
  if (form.allow_usdt !== undefined) out.allow_usdt = form.allow_usdt === 'on';
  const up = int(form.default_amount_up);
  const down = int(form.default_amount_down);
  const ttl = int(form.order_ttl_seconds);
  const rate = int(form.payin_rate_limit);
  if (up !== undefined) out.default_amount_up = up;
  if (down !== undefined) out.default_amount_down = down;
  if (ttl !== undefined) out.order_ttl_seconds = ttl;
  if (rate !== undefined) out.payin_rate_limit = rate;
  if (form.settlement === 'fiat' || form.settlement === 'usdt') out.settlement = form.settlement;
  // The payment form's branding (docs/decisions.md section 31): an empty field clears it.
  for (const key of ['display_name', 'logo_url', 'return_url'] as const)
    if (form[key] !== undefined) out[key] = String(form[key]).trim();
  if (form.limits_shown) {
    const limits: NonNullable<MerchantSettingsInput['limits']> = {};
    for (const [key, value] of Object.entries(form)) {
      const m = /^limit_(min|max)_([a-z0-9_]{1,40})$/.exec(key);
      const amount = str(value);
      if (!m?.[1] || !m[2] || amount === undefined) continue;
      limits[m[2]] = { ...limits[m[2]], [m[1]]: amount };
    }
    out.limits = limits;
  }
  return out;
}

/** The merchants' console pages (docs/decisions.md section 32): list, create, settings, key rotation, balance adjustment. */
export function merchantPages(pages: App, services: ConsoleServices) {
  const { merchants } = services;

  // --- merchants ----------------------------------------------------------------------------------
  pages.get('/backoffice/merchants', { preValidation: needs('merchants.read') }, async (request, reply) => {
    return render(request, reply, 'merchants.eta', { list: await merchants.list(), created: null });
  });
  pages.post(
    '/backoffice/merchants',
    {
      preValidation: needs('merchants.manage'),
      schema: { body: FormBody({ merchant_id: Field(100), ...SETTINGS_FIELDS }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      try {
        const created = await merchants.create(
          String(str(form.merchant_id) ?? ''),
          settingsFromForm(form),
          user.actor,
        );
        // The key is shown on this page only, once.
        return render(request, reply, 'merchants.eta', { list: await merchants.list(), created });
      } catch (err) {
        if (err instanceof AppError && err.code !== 'FORBIDDEN')
          return reply.redirect(`/backoffice/merchants?error=${err.code}`, 303);
        throw err;
      }
    },
  );
  merchantPageRoutes(pages, services);
}

/** The merchant page's data: the merchant (or `shown`, values typed into a refused form), its balance and ledger. */
async function merchantPage(
  services: ConsoleServices,
  id: string,
  extra: { newKey?: string; shown?: object; failure?: AppError } = {},
) {
  const { merchants, ledger } = services;
  const merchant = await merchants.get(id);
  const [balance, entries] = await Promise.all([
    ledger.merchantBalance({ id, currencies: merchant.currencies, allowUsdt: merchant.allow_usdt }),
    ledger.entries(id),
  ]);
  return {
    merchant: { ...merchant, ...extra.shown },
    balance,
    entries,
    newKey: extra.newKey ?? null,
    failure: extra.failure,
    allTypes,
  };
}

/** One merchant's page: its settings, a key rotation and a balance adjustment (both asked first). */
function merchantPageRoutes(pages: App, services: ConsoleServices) {
  const { merchants, ledger } = services;
  pages.get(
    '/backoffice/merchants/:id',
    { preValidation: needs('merchants.read'), schema: { params: IdParams } },
    async (request, reply) => {
      const { id } = request.params;
      return render(request, reply, 'merchant.eta', await merchantPage(services, id));
    },
  );
  pages.post(
    '/backoffice/merchants/:id',
    {
      preValidation: needs('merchants.manage'),
      schema: { params: IdParams, body: FormBody({ enabled: Field(10), ...SETTINGS_FIELDS }) },
    },
    async (request, reply) => {
      const { id } = request.params;
      const form = request.body;
      const user = userOf(request);
      const settings = settingsFromForm(form);
      if (form.enabled !== undefined) settings.enabled = form.enabled === 'true';
      try {
        await merchants.update(id, settings, user.actor);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        // Drawn again with what was typed beside the error: a redirect would lose every field.
        reply.status(400);
        return render(
          request,
          reply,
          'merchant.eta',
          await merchantPage(services, id, { shown: settings, failure: err }),
        );
      }
      return reply.redirect(withFlash(`/backoffice/merchants/${id}`, 'merchantSaved'), 303);
    },
  );
  pages.post(
    '/backoffice/merchants/:id/rotate-key',
    { preValidation: needs('merchants.manage'), schema: { params: IdParams, body: FormBody({}) } },
    async (request, reply) => {
      const { id } = request.params;
      const form = request.body;
      const user = userOf(request);
      const asked = confirmFirst(request, reply, form, {
        kind: 'rotateKey',
        values: { id },
        back: `/backoffice/merchants/${id}`,
        permission: 'merchants.manage',
      });
      if (asked) return asked;
      const rotated = await merchants.rotateKey(id, user.actor);
      return render(
        request,
        reply,
        'merchant.eta',
        await merchantPage(services, id, { newKey: rotated.api_key }),
      );
    },
  );
  pages.post(
    '/backoffice/merchants/:id/adjust',
    {
      preValidation: needs('merchants.manage'),
      schema: { params: IdParams, body: FormBody({ amount: Field(), currency: Field(), reason: Field() }) },
    },
    async (request, reply) => {
      const { id } = request.params;
      const form = request.body;
      const user = userOf(request);
      const asked = confirmFirst(request, reply, form, {
        kind: 'adjust',
        values: {
          id,
          amount: String(form.amount ?? ''),
          currency: String(form.currency ?? 'RUB'),
          reason: String(form.reason ?? ''),
        },
        back: `/backoffice/merchants/${id}`,
        permission: 'merchants.manage',
      });
      if (asked) return asked;
      return act(reply, `/backoffice/merchants/${id}`, async () => {
        await ledger.adjust(
          id,
          {
            currency: String(form.currency ?? 'RUB'),
            amount: String(form.amount ?? ''),
            reason: String(str(form.reason) ?? ''),
          },
          user.actor,
        );
        return 'balanceAdjusted';
      });
    },
  );
}
