import { Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import type { RequisiteInput } from '../../modules/requisites/index.js';
import { Field, FormBody, IdParams, PathParam } from '../../platform/sessions/index.js';
import { merchantPages } from './backoffice-merchant-pages.js';
import { needs, userOf } from './backoffice-session.js';
import { confirmFirst } from './console-confirm.js';
import { act } from './console-messages.js';
import { type Form, render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';

const int = (v: string | undefined) => (str(v) === undefined ? undefined : Number.parseInt(String(v), 10));

/** Requisites: the list and a new one. */
function requisiteListPages(pages: App, { requisites }: ConsoleServices) {
  pages.get('/backoffice/requisites', { preValidation: needs('pool.read') }, async (request, reply) => {
    return render(request, reply, 'requisites.eta', { list: await requisites.list() });
  });
  pages.post(
    '/backoffice/requisites',
    {
      preValidation: needs('pool.manage'),
      schema: {
        body: FormBody({
          address: Field(),
          bank: Field(),
          currency: Field(),
          daily_limit: Field(),
          emv: Field(),
          holder_name: Field(),
          kind: Field(),
          max_active_orders: Field(),
          max_amount: Field(),
          min_amount: Field(),
        }),
      },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
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
    },
  );
}

/** A requisite's limits changed, or it is disabled (asked to confirm first). */
function requisiteEditPage(pages: App, { requisites }: ConsoleServices) {
  pages.post(
    '/backoffice/requisites/:id',
    {
      preValidation: needs('pool.manage'),
      schema: {
        params: IdParams,
        body: FormBody({
          daily_limit: Field(),
          enabled: Field(),
          max_active_orders: Field(),
          max_amount: Field(),
          min_amount: Field(),
        }),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const form = request.body;
      const user = userOf(request);
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
    },
  );
}

/** Exchange rates: the list and a manual rate. */
function ratePages(pages: App, { rates }: ConsoleServices) {
  pages.get('/backoffice/rates', { preValidation: needs('pool.read') }, async (request, reply) => {
    return render(request, reply, 'rates.eta', { list: await rates.list() });
  });
  pages.post(
    '/backoffice/rates',
    {
      preValidation: needs('pool.manage'),
      schema: {
        body: FormBody({
          base: Field(),
          quote: Field(),
          rate: Field(),
          reason: Field(),
          ttl_seconds: Field(),
        }),
      },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
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
    },
  );
}

/** Crypto: the overview, an xpub per network, the TON address pool. */
function cryptoPages(pages: App, { crypto }: ConsoleServices) {
  pages.get('/backoffice/crypto', { preValidation: needs('pool.read') }, async (request, reply) => {
    return render(request, reply, 'crypto.eta', { overview: await crypto.overview() });
  });
  pages.post(
    '/backoffice/crypto/xpubs',
    { preValidation: needs('pool.manage'), schema: { body: FormBody({ network: Field(), xpub: Field() }) } },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      return act(reply, '/backoffice/crypto', async () => {
        const r = await crypto.setXpub(
          { network: String(form.network ?? ''), xpub: String(form.xpub ?? '') },
          user.actor,
        );
        return { key: 'xpubSaved', values: { address: r.first_address, next: String(r.next_index) } };
      });
    },
  );
  pages.post(
    '/backoffice/crypto/pool',
    { preValidation: needs('pool.manage'), schema: { body: FormBody({ addresses: Field() }) } },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
      return act(reply, '/backoffice/crypto', async () => {
        const addresses = String(form.addresses ?? '')
          .split(/\s+/)
          .filter(Boolean);
        const r = await crypto.addPoolAddresses({ network: 'ton', addresses }, user.actor);
        return { key: 'poolAdded', values: { added: String(r.added), skipped: String(r.skipped) } };
      });
    },
  );
}

/** The audit log, and operators created and changed. */
function auditAndOperatorPages(pages: App, services: ConsoleServices) {
  const { operators } = services;
  pages.get('/backoffice/audit', { preValidation: needs('audit.read') }, async (request, reply) => {
    const q = request.query as Form;
    const rows = await services.audit.list(
      { actor: str(q.actor), action: str(q.action), targetId: str(q.target_id) },
      300,
    );
    return render(request, reply, 'audit.eta', { rows, q });
  });
  pages.get('/backoffice/operators', { preValidation: needs('operators.manage') }, async (request, reply) => {
    return render(request, reply, 'operators.eta', { list: await operators.list(), created: null });
  });
  pages.post(
    '/backoffice/operators',
    {
      preValidation: needs('operators.manage'),
      schema: { body: FormBody({ role: Field(), username: Field() }) },
    },
    async (request, reply) => {
      const form = request.body;
      const user = userOf(request);
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
    },
  );
  pages.post(
    '/backoffice/operators/:username',
    {
      preValidation: needs('operators.manage'),
      schema: {
        params: Type.Object({ username: PathParam }),
        body: FormBody({ enabled: Field(), role: Field() }),
      },
    },
    async (request, reply) => {
      const { username } = request.params;
      const form = request.body;
      const user = userOf(request);
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
    },
  );
}

/** Console pages for admins and viewers: merchants, requisites, rates, crypto, audit, operators. */
export function adminPages(pages: App, services: ConsoleServices) {
  merchantPages(pages, services);
  requisiteListPages(pages, services);
  requisiteEditPage(pages, services);
  ratePages(pages, services);
  cryptoPages(pages, services);
  auditAndOperatorPages(pages, services);
}
