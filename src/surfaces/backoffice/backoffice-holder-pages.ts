import type { App } from '../../http/schemas.js';
import { Field, FormBody, IdParams } from '../../platform/sessions/index.js';
import { needs, userOf } from './backoffice-session.js';
import { act } from './console-messages.js';
import { render, str } from './console-pages.js';
import type { ConsoleServices } from './console-services.js';
import { holdersAtLimit } from './dashboard.js';

const METHODS = ['bank_transfer', 'cash', 'usdt'] as const;

/**
 * Console pages of requisite holders (docs/decisions.md "Holders' money", "Holders' limits in the
 * claim"): the list with held, limit, deposit, pending and the last settlement; a holder's page with
 * their books, requisites and phones and the forms to record a settlement or a correction. The same
 * service and permissions as the admin API: reads `pool.read`, settlements `pool.manage`,
 * corrections the admin role (the service refuses any other).
 */
export function holderPages(
  pages: App,
  services: Pick<ConsoleServices, 'holders' | 'deviceAdmin' | 'holderUsers' | 'deviceReview' | 'receipts'>,
) {
  pages.get('/backoffice/holders', { preValidation: needs('pool.read') }, async (request, reply) => {
    const list = await services.holders.list();
    const near = new Map(holdersAtLimit(list).map((h) => [h.id, h]));
    return render(request, reply, 'holders.eta', { list, near });
  });

  pages.get(
    '/backoffice/holders/:id',
    { preValidation: needs('pool.read'), schema: { params: IdParams } },
    async (request, reply) => {
      const holder = await services.holders.get(request.params.id);
      const mine = new Set(holder.requisites.map((r) => r.id));
      const phones = (await services.deviceAdmin.list()).filter((d) =>
        d.requisite_ids.some((r) => mine.has(r)),
      );
      const lastSettlement = holder.settlements.find((s) => s.kind === 'settlement') ?? null;
      return render(request, reply, 'holder.eta', { holder, phones, lastSettlement, methods: METHODS });
    },
  );

  const settlementForm = FormBody({ amount: Field(), method: Field(), reference: Field(), tx_hash: Field() });
  pages.post(
    '/backoffice/holders/:id/settlements',
    { preValidation: needs('pool.manage'), schema: { params: IdParams, body: settlementForm } },
    async (request, reply) => {
      const { id } = request.params;
      const form = request.body;
      const user = userOf(request);
      return act(reply, `/backoffice/holders/${encodeURIComponent(id)}`, async () => {
        const method = METHODS.find((m) => m === form.method) ?? 'bank_transfer';
        const txHash = str(form.tx_hash);
        await services.holders.settle(
          id,
          {
            amount: str(form.amount) ?? '',
            method,
            reference: str(form.reference) ?? '',
            ...(txHash ? { tx_hash: txHash } : {}),
          },
          user.actor,
        );
        return { key: 'holderSettled', values: { amount: str(form.amount) ?? '' } };
      });
    },
  );

  pages.post(
    '/backoffice/holders/:id/corrections',
    {
      preValidation: needs('pool.manage'),
      schema: { params: IdParams, body: FormBody({ amount: Field(), reason: Field() }) },
    },
    async (request, reply) => {
      const { id } = request.params;
      const form = request.body;
      const user = userOf(request);
      return act(reply, `/backoffice/holders/${encodeURIComponent(id)}`, async () => {
        await services.holders.correct(
          id,
          { amount: str(form.amount) ?? '', reason: str(form.reason) ?? '' },
          user.actor,
        );
        return { key: 'holderCorrected', values: { amount: str(form.amount) ?? '' } };
      });
    },
  );
  holderInvitationPage(pages, services);
  holderReportFile(pages, services);
}

/**
 * The receipt a holder attached to a missed-payment report, shown from the review queue like a
 * receipt (docs/decisions.md "The holder's own page"): sandboxed, no script, framed by the console only.
 */
function holderReportFile(pages: App, services: Pick<ConsoleServices, 'deviceReview' | 'receipts'>) {
  pages.get(
    '/backoffice/holder-reports/:id/receipt',
    { preValidation: needs('orders.read'), schema: { params: IdParams } },
    async (request, reply) => {
      const kept = await services.deviceReview.holderReportFile(request.params.id);
      const file = await services.receipts.keptFile(kept.fileId, kept.contentType);
      return reply
        .header('content-type', file.contentType)
        .header('content-disposition', `inline; filename="${file.filename}"`)
        .header('x-content-type-options', 'nosniff')
        .header(
          'content-security-policy',
          "default-src 'none'; img-src 'self'; object-src 'self'; sandbox; frame-ancestors 'self'",
        )
        .send(file.stream);
    },
  );
}

/**
 * The holder's invitation to their own page (docs/decisions.md "The holder's own page"), `pool.manage`
 * like the admin API's: the one-time link is shown once, on the answer's page.
 */
function holderInvitationPage(pages: App, services: Pick<ConsoleServices, 'holders' | 'holderUsers'>) {
  pages.post(
    '/backoffice/holders/:id/invitations',
    {
      preValidation: needs('pool.manage'),
      schema: { params: IdParams, body: FormBody({ login: Field(64) }) },
    },
    async (request, reply) => {
      const { id } = request.params;
      const holder = await services.holders.get(id);
      const invite = await services.holderUsers.invite(
        id,
        { login: str(request.body.login) ?? '' },
        userOf(request).actor,
      );
      return render(request, reply, 'holder-invited.eta', { holder, invite });
    },
  );
}
