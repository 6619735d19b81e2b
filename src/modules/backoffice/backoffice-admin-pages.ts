import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import type { MerchantSettingsInput } from '../merchants/index.js';
import type { RequisiteInput } from '../requisites/index.js';
import { checkCsrf, requirePermission, userOf } from './backoffice-session.js';
import { act, confirmFirst, type Form, render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

const list = (v: string | undefined) =>
  str(v)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const int = (v: string | undefined) => (str(v) === undefined ? undefined : Number.parseInt(String(v), 10));

/** Merchant settings from the console form (text fields; limits as JSON). */
function settingsFromForm(form: Form): MerchantSettingsInput {
  const out: MerchantSettingsInput = {};
  const currencies = list(form.currencies);
  const types = list(form.payment_types);
  if (currencies) out.currencies = currencies;
  if (types) out.payment_types = types;
  if (str(form.payin_fee_percent)) out.payin_fee_percent = String(str(form.payin_fee_percent));
  if (str(form.payout_fee_percent)) out.payout_fee_percent = String(str(form.payout_fee_percent));
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
  // The payment form's branding (issue 22): an empty field clears it.
  for (const key of ['display_name', 'logo_url', 'return_url'] as const)
    if (form[key] !== undefined) out[key] = String(form[key]).trim();
  if (str(form.limits)) {
    try {
      out.limits = JSON.parse(String(form.limits));
    } catch {
      throw new AppError('VALIDATION_ERROR', [
        { field: 'limits', problem: 'must be JSON like {"sim":{"min":100}}' },
      ]);
    }
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
  pages.get('/backoffice/merchants/:id', async (request, reply) => {
    requirePermission(request, 'merchants.read');
    const { id } = request.params as { id: string };
    const merchant = await merchants.get(id);
    const [balance, entries] = await Promise.all([
      ledger.merchantBalance({ id, currencies: merchant.currencies, allowUsdt: merchant.allow_usdt }),
      ledger.entries(id),
    ]);
    return render(request, reply, 'merchant.eta', { merchant, balance, entries, newKey: null });
  });
  pages.post('/backoffice/merchants/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    checkCsrf(request, form._csrf);
    const user = requirePermission(request, 'merchants.manage');
    return act(reply, `/backoffice/merchants/${id}`, async () => {
      const settings = settingsFromForm(form);
      if (form.enabled !== undefined) settings.enabled = form.enabled === 'true';
      await merchants.update(id, settings, user.actor);
      return 'Merchant saved';
    });
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
    });
    if (asked) return asked;
    const rotated = await merchants.rotateKey(id, user.actor);
    const merchant = await merchants.get(id);
    const [balance, entries] = await Promise.all([
      ledger.merchantBalance({ id, currencies: merchant.currencies, allowUsdt: merchant.allow_usdt }),
      ledger.entries(id),
    ]);
    return render(request, reply, 'merchant.eta', { merchant, balance, entries, newKey: rotated.api_key });
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
      return 'Balance adjusted';
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
      return 'Requisite added';
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
      return 'Requisite saved';
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
      await rates.set(
        {
          base: String(form.base ?? ''),
          quote: String(form.quote ?? ''),
          rate: String(form.rate ?? ''),
          ...(ttl !== undefined ? { ttl_seconds: /^\d{1,9}$/.test(ttl) ? Number(ttl) : Number.NaN } : {}),
        },
        user.actor,
      );
      return 'Rate saved';
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
      return `Key saved; index 0 address ${r.first_address}, next index ${r.next_index}`;
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
      return `${r.added} addresses added, ${r.skipped} already known`;
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
      return 'Operator saved';
    });
  });
  void userOf;
}
