import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { CRYPTO_TYPES, FIAT_TYPES } from '../../modules/catalog/index.js';
import type { MerchantSettingsInput } from '../../modules/merchants/index.js';
import type { RequisiteInput } from '../../modules/requisites/index.js';
import { checkCsrf, requirePermission, userOf } from './backoffice-session.js';
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

/** Console pages for admins and viewers: merchants, requisites, rates, crypto, audit, operators. */
export function adminPages(pages: App, services: ConsoleServices) {
  const { merchants, ledger, requisites, rates, crypto, operators } = services;

  // --- merchants ----------------------------------------------------------------------------------
  pages.get('/backoffice/merchants', async (request, reply) => {
    requirePermission(request, 'merchants.read');
    return render(request, reply, 'merchants.eta', { list: await merchants.list(), created: null });
  });
  pages.post('/backoffice/merchants', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'merchants.manage');
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
  });
  /** The merchant page's data: the merchant (or `shown`, values typed into a refused form), its balance and ledger. */
  async function merchantPage(
    id: string,
    extra: { newKey?: string; shown?: object; failure?: AppError } = {},
  ) {
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
  pages.get('/backoffice/merchants/:id', async (request, reply) => {
    requirePermission(request, 'merchants.read');
    const { id } = request.params as { id: string };
    return render(request, reply, 'merchant.eta', await merchantPage(id));
  });
  pages.post('/backoffice/merchants/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'merchants.manage');
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
        await merchantPage(id, { shown: settings, failure: err }),
      );
    }
    return reply.redirect(withFlash(`/backoffice/merchants/${id}`, 'merchantSaved'), 303);
  });
  pages.post('/backoffice/merchants/:id/rotate-key', async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'merchants.manage');
    const asked = confirmFirst(request, reply, form, {
      kind: 'rotateKey',
      values: { id },
      back: `/backoffice/merchants/${id}`,
      permission: 'merchants.manage',
    });
    if (asked) return asked;
    const rotated = await merchants.rotateKey(id, user.actor);
    return render(request, reply, 'merchant.eta', await merchantPage(id, { newKey: rotated.api_key }));
  });
  pages.post('/backoffice/merchants/:id/adjust', async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'merchants.manage');
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
  });

  // --- requisites ---------------------------------------------------------------------------------
  pages.get('/backoffice/requisites', async (request, reply) => {
    requirePermission(request, 'pool.read');
    return render(request, reply, 'requisites.eta', { list: await requisites.list() });
  });
  pages.post('/backoffice/requisites', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'pool.manage');
    return act(reply, '/backoffice/requisites', async () => {
      await requisites.create(
        {
          kind: String(form.kind) as RequisiteInput['kind'],
          bank: String(form.bank ?? ''),
          address: String(form.address ?? ''),
          holder_name: String(form.holder_name ?? ''),
          currency: String(form.currency ?? 'RUB'),
          min_amount: str(form.min_amount) ?? null,
          max_amount: str(form.max_amount) ?? null,
          daily_limit: str(form.daily_limit) ?? null,
          max_active_orders: int(form.max_active_orders) ?? null,
          emv: str(form.emv) ?? null,
        },
        user.actor,
      );
      return 'requisiteAdded';
    });
  });
  pages.post('/backoffice/requisites/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'pool.manage');
    if (form.enabled === 'false') {
      const asked = confirmFirst(request, reply, form, {
        kind: 'disableRequisite',
        values: {},
        back: '/backoffice/requisites',
        permission: 'pool.manage',
      });
      if (asked) return asked;
    }
    return act(reply, '/backoffice/requisites', async () => {
      await requisites.update(
        id,
        {
          ...(form.enabled !== undefined ? { enabled: form.enabled === 'true' } : {}),
          ...(form.max_amount !== undefined ? { max_amount: str(form.max_amount) ?? null } : {}),
          ...(form.min_amount !== undefined ? { min_amount: str(form.min_amount) ?? null } : {}),
          ...(form.daily_limit !== undefined ? { daily_limit: str(form.daily_limit) ?? null } : {}),
          ...(form.max_active_orders !== undefined
            ? { max_active_orders: int(form.max_active_orders) ?? null }
            : {}),
        },
        user.actor,
      );
      return 'requisiteSaved';
    });
  });

  // --- rates and crypto ---------------------------------------------------------------------------
  pages.get('/backoffice/rates', async (request, reply) => {
    requirePermission(request, 'pool.read');
    return render(request, reply, 'rates.eta', { list: await rates.list() });
  });
  pages.post('/backoffice/rates', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'pool.manage');
    return act(reply, '/backoffice/rates', async () => {
      const ttl = str(form.ttl_seconds);
      const reason = str(form.reason);
      await rates.set(
        {
          base: String(form.base ?? ''),
          quote: String(form.quote ?? ''),
          rate: String(form.rate ?? ''),
          ...(ttl !== undefined ? { ttl_seconds: /^\d{1,9}$/.test(ttl) ? Number(ttl) : Number.NaN } : {}),
          ...(reason !== undefined ? { reason } : {}),
        },
        user.actor,
      );
      return 'rateSaved';
    });
  });
  pages.get('/backoffice/crypto', async (request, reply) => {
    requirePermission(request, 'pool.read');
    return render(request, reply, 'crypto.eta', { overview: await crypto.overview() });
  });
  pages.post('/backoffice/crypto/xpubs', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'pool.manage');
    return act(reply, '/backoffice/crypto', async () => {
      const r = await crypto.setXpub(
        { network: String(form.network ?? ''), xpub: String(form.xpub ?? '') },
        user.actor,
      );
      return { key: 'xpubSaved', values: { address: r.first_address, next: String(r.next_index) } };
    });
  });
  pages.post('/backoffice/crypto/pool', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'pool.manage');
    return act(reply, '/backoffice/crypto', async () => {
      const addresses = String(form.addresses ?? '')
        .split(/\s+/)
        .filter(Boolean);
      const r = await crypto.addPoolAddresses({ network: 'ton', addresses }, user.actor);
      return { key: 'poolAdded', values: { added: String(r.added), skipped: String(r.skipped) } };
    });
  });

  // --- audit and operators ------------------------------------------------------------------------
  pages.get('/backoffice/audit', async (request, reply) => {
    requirePermission(request, 'audit.read');
    const q = request.query as Form;
    const rows = await services.audit.list(
      { actor: str(q.actor), action: str(q.action), targetId: str(q.target_id) },
      300,
    );
    return render(request, reply, 'audit.eta', { rows, q });
  });
  pages.get('/backoffice/operators', async (request, reply) => {
    requirePermission(request, 'operators.manage');
    return render(request, reply, 'operators.eta', { list: await operators.list(), created: null });
  });
  pages.post('/backoffice/operators', async (request, reply) => {
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'operators.manage');
    try {
      const created = await operators.create(
        { username: String(form.username ?? ''), role: String(form.role ?? '') },
        user.actor,
      );
      return render(request, reply, 'operators.eta', { list: await operators.list(), created });
    } catch (err) {
      if (err instanceof AppError && err.code !== 'FORBIDDEN')
        return reply.redirect(`/backoffice/operators?error=${err.code}`, 303);
      throw err;
    }
  });
  pages.post('/backoffice/operators/:username', async (request, reply) => {
    const { username } = request.params as { username: string };
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'operators.manage');
    return act(reply, '/backoffice/operators', async () => {
      await operators.update(
        username,
        {
          ...(str(form.role) ? { role: String(form.role) } : {}),
          ...(form.enabled !== undefined ? { enabled: form.enabled === 'true' } : {}),
        },
        user.actor,
      );
      return 'operatorSaved';
    });
  });
  void userOf;
}
