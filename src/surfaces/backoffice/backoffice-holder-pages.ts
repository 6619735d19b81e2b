import { Type } from '@sinclair/typebox';
import { isMultipart, type MultipartUpload, type UploadReader } from '../../http/multipart.js';
import type { App } from '../../http/schemas.js';
import {
  Field,
  FormBody,
  IdParams,
  PathParam,
  type SessionRouteConfig,
} from '../../platform/sessions/index.js';
import { checkCsrf, needs, userOf } from './backoffice-session.js';
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
  uploads: UploadReader,
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
      const devices = await services.deviceAdmin.list();
      // The holder's phones: given to them, or confirming their requisites' orders.
      const phones = devices.filter(
        (d) => d.holder_id === holder.id || d.requisite_ids.some((r) => mine.has(r)),
      );
      const others = devices.filter((d) => d.holder_id !== holder.id && d.state !== 'revoked');
      const lastSettlement = holder.settlements.find((s) => s.kind === 'settlement') ?? null;
      const accounts = await services.holderUsers.accounts(holder.id);
      return render(request, reply, 'holder.eta', {
        holder,
        accounts,
        phones,
        others,
        lastSettlement,
        methods: METHODS,
      });
    },
  );

  settlementPages(pages, services, uploads);

  // A phone given to this holder (docs/decisions.md "Assigning requisites and phones to holders"):
  // another holder's moves only when the operator ticks "move"; the API's codes otherwise.
  pages.post(
    '/backoffice/holders/:id/devices',
    {
      preValidation: needs('pool.manage'),
      schema: { params: IdParams, body: FormBody({ device_id: Field(), move: Field() }) },
    },
    async (request, reply) => {
      const { id } = request.params;
      const form = request.body;
      const user = userOf(request);
      return act(reply, `/backoffice/holders/${encodeURIComponent(id)}`, async () => {
        await services.deviceAdmin.assignHolder(
          str(form.device_id) ?? '',
          id,
          form.move === 'on',
          user.actor,
        );
        return 'holderPhoneAssigned';
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
  holderAccountPages(pages, services);
  holderReportFile(pages, services);
}

/**
 * A holder's page account turned off (its sessions end at once) or on again, `pool.manage` like the
 * admin API's (docs/decisions.md "Payouts on the holder's page").
 */
function holderAccountPages(pages: App, services: Pick<ConsoleServices, 'holderUsers'>) {
  for (const action of ['disable', 'enable'] as const) {
    pages.post(
      `/backoffice/holders/:id/accounts/:user_id/${action}`,
      {
        preValidation: needs('pool.manage'),
        schema: { params: Type.Object({ id: PathParam, user_id: PathParam }), body: FormBody({}) },
      },
      async (request, reply) => {
        const { id, user_id: userId } = request.params;
        return act(reply, `/backoffice/holders/${encodeURIComponent(id)}`, async () => {
          await services.holderUsers.setAccountEnabled(
            id,
            userId,
            action === 'enable',
            userOf(request).actor,
          );
          return action === 'enable' ? 'holderAccountEnabled' : 'holderAccountDisabled';
        });
      },
    );
  }
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

/**
 * A settlement from the holder's page (multipart: its proof file as `proof`, the CSRF field read from
 * the parts after the permission), and the download of a settlement's proof (docs/decisions.md
 * "Settlement proofs"; `pool.read`, like the page).
 */
function settlementPages(pages: App, services: Pick<ConsoleServices, 'holders'>, uploads: UploadReader) {
  pages.post(
    '/backoffice/holders/:id/settlements',
    {
      preValidation: needs('pool.manage'),
      schema: { params: IdParams },
      config: { csrfInParts: true } satisfies SessionRouteConfig,
    },
    async (request, reply) => {
      const { id } = request.params;
      // A urlencoded post (no file) is read the same way: its fields and its CSRF field.
      const upload: MultipartUpload = isMultipart(request)
        ? await uploads.read(request.parts(), 'proof')
        : { orderId: undefined, fields: textFields(request.body), file: undefined };
      try {
        checkCsrf(request, upload.fields._csrf);
        const form = upload.fields;
        const user = userOf(request);
        return await act(reply, `/backoffice/holders/${encodeURIComponent(id)}`, async () => {
          const method = METHODS.find((m) => m === form.method) ?? 'bank_transfer';
          const txHash = str(form.tx_hash);
          const input = {
            amount: str(form.amount) ?? '',
            method,
            reference: str(form.reference) ?? '',
            ...(txHash ? { tx_hash: txHash } : {}),
          };
          await services.holders.settle(id, input, user.actor, upload);
          return { key: 'holderSettled', values: { amount: str(form.amount) ?? '' } };
        });
      } finally {
        await uploads.discard(upload);
      }
    },
  );

  pages.get(
    '/backoffice/holders/:id/settlements/:settlement_id/proof',
    {
      preValidation: needs('pool.read'),
      schema: { params: Type.Object({ id: PathParam, settlement_id: PathParam }) },
    },
    async (request, reply) => {
      const file = await services.holders.settlementProof(request.params.id, request.params.settlement_id);
      return reply
        .header('content-type', file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(file.stream);
    },
  );
}

/** The string fields of a urlencoded body (anything else dropped). */
function textFields(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof body !== 'object' || body === null) return out;
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}
