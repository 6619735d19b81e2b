import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { isMultipart, type UploadReader } from '../../http/multipart.js';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { csvStream } from '../../lib/csv-stream.js';
import { invalidField } from '../../lib/errors.js';
import { STATEMENT_CSV_COLUMNS } from '../ledger/index.js';
import type { HolderUsers } from './holder-users.js';
import {
  CorrectionBody,
  HolderAccountParams,
  HolderAccountSchema,
  HolderCreateBody,
  HolderDetailSchema,
  HolderIdParams,
  HolderInvitationBody,
  HolderInvitationSchema,
  HolderListItem,
  HolderPatchBody,
  HolderRequisiteSchema,
  HolderRequisitesBody,
  HolderSchema,
  MovementSchema,
  SettlementBody,
  SettlementProofParams,
  StatementQuery,
  StatementSchema,
} from './holders-schemas.js';
import type { HoldersService, SettlementInput } from './holders-service.js';

const tags = ['admin'];

/**
 * Admin API of holders (docs/api.md "Holders"; docs/decisions.md "Holders' money"): reads need
 * `pool.read`, writes `pool.manage`, corrections the admin role.
 */
export function holdersAdminRoutes(
  app: App,
  deps: { holders: HoldersService; uploads: UploadReader; users: HolderUsers },
) {
  const { holders } = deps;
  const ok = <T>(data: T) => ({ success: true as const, data });

  holderInvitationRoutes(app, deps);

  app.post(
    '/admin/holders',
    {
      schema: { tags, body: HolderCreateBody, response: { 200: Envelope(HolderSchema), ...errorResponses } },
    },
    async (request) => ok(await holders.create(request.body, actorOf(request))),
  );

  app.get(
    '/admin/holders',
    { schema: { tags, response: { 200: Envelope(Type.Array(HolderListItem)), ...errorResponses } } },
    async () => ok(await holders.list()),
  );

  app.get(
    '/admin/holders/:id',
    {
      schema: {
        tags,
        params: HolderIdParams,
        response: { 200: Envelope(HolderDetailSchema), ...errorResponses },
      },
    },
    async (request) => ok(await holders.get(request.params.id)),
  );

  app.patch(
    '/admin/holders/:id',
    {
      schema: {
        tags,
        params: HolderIdParams,
        body: HolderPatchBody,
        response: { 200: Envelope(HolderSchema), ...errorResponses },
      },
    },
    async (request) => ok(await holders.update(request.params.id, request.body, actorOf(request))),
  );

  app.put(
    '/admin/holders/:id/requisites',
    {
      schema: {
        tags,
        params: HolderIdParams,
        body: HolderRequisitesBody,
        response: { 200: Envelope(Type.Array(HolderRequisiteSchema)), ...errorResponses },
      },
    },
    async (request) =>
      ok(
        await holders.setRequisites(
          request.params.id,
          request.body.requisite_ids,
          actorOf(request),
          request.body.move ?? false,
        ),
      ),
  );

  settlementRoutes(app, deps);

  app.post(
    '/admin/holders/:id/corrections',
    {
      schema: {
        tags,
        params: HolderIdParams,
        body: CorrectionBody,
        response: { 200: Envelope(MovementSchema), ...errorResponses },
      },
    },
    async (request) => ok(await holders.correct(request.params.id, request.body, actorOf(request))),
  );

  app.get(
    '/admin/holders/:id/statement',
    {
      schema: {
        tags,
        params: HolderIdParams,
        querystring: StatementQuery,
        response: { 200: Envelope(StatementSchema), ...errorResponses },
      },
    },
    async (request) => ok(await holders.statement(request.params.id, request.query)),
  );

  app.get(
    '/admin/holders/:id/statement.csv',
    {
      schema: {
        tags,
        summary: 'The statement as CSV (opening_balance row, then the entries)',
        params: HolderIdParams,
        querystring: StatementQuery,
      },
    },
    async (request, reply) => {
      const { currency, rows } = await holders.statementRows(request.params.id, request.query);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="holder-${request.params.id}-${currency}.csv"`)
        .send(csvStream(STATEMENT_CSV_COLUMNS, rows));
    },
  );
}

/**
 * `POST /admin/holders/{id}/settlements` (JSON, or multipart with the proof file as `proof`) and
 * the download of a settlement's proof (docs/decisions.md "Settlement proofs").
 */
function settlementRoutes(app: App, deps: { holders: HoldersService; uploads: UploadReader }) {
  const ok = <T>(data: T) => ({ success: true as const, data });
  app.post(
    '/admin/holders/:id/settlements',
    {
      schema: {
        tags,
        summary: 'Record a settlement (JSON, or multipart with the proof file as `proof`)',
        params: HolderIdParams,
        // Checked in full by `checkedSettlement` (a multipart body has no JSON to check here).
        body: Type.Optional(Type.Partial(SettlementBody)),
        response: { 200: Envelope(MovementSchema), ...errorResponses },
      },
    },
    async (request) => {
      if (!isMultipart(request)) {
        const input = checkedSettlement(request.body ?? {});
        return ok(await deps.holders.settle(request.params.id, input, actorOf(request)));
      }
      const upload = await deps.uploads.read(request.parts(), 'proof');
      try {
        const input = checkedSettlement(presentFields(upload.fields));
        return ok(await deps.holders.settle(request.params.id, input, actorOf(request), upload));
      } finally {
        await deps.uploads.discard(upload);
      }
    },
  );

  app.get(
    '/admin/holders/:id/settlements/:settlement_id/proof',
    {
      schema: {
        tags,
        summary: "A settlement's proof file (its stored type)",
        params: SettlementProofParams,
      },
    },
    async (request, reply) => {
      const file = await deps.holders.settlementProof(request.params.id, request.params.settlement_id);
      return reply
        .header('content-type', file.contentType)
        .header('content-length', String(file.size))
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('x-content-type-options', 'nosniff')
        .send(file.stream);
    },
  );
}

/** A multipart form's settlement fields that are not blank (a browser sends an empty tx_hash). */
function presentFields(fields: Record<string, string>): Record<string, string> {
  const body: Record<string, string> = {};
  for (const key of ['amount', 'currency', 'method', 'reference', 'tx_hash']) {
    const v = fields[key]?.trim();
    if (v) body[key] = v;
  }
  return body;
}

/** A settlement body checked against `SettlementBody`: VALIDATION_ERROR naming the first field that does not fit. */
function checkedSettlement(body: unknown): SettlementInput {
  const first = Value.Errors(SettlementBody, body).First();
  if (first) throw invalidField(first.path.replace(/^\//, '') || 'body', first.message);
  return body as SettlementInput;
}

/**
 * `POST /admin/holders/{id}/invitations {login}`: the holder's one-time link (72 h) to their own page
 * (docs/decisions.md "The holder's own page"), where they set a password and enrol TOTP.
 */
function holderInvitationRoutes(app: App, deps: { users: HolderUsers }) {
  const ok = <T>(data: T) => ({ success: true as const, data });
  app.post(
    '/admin/holders/:id/invitations',
    {
      schema: {
        tags,
        summary: 'Invite a holder to their own page: a one-time link (72 h) to set a password and TOTP',
        params: HolderIdParams,
        body: HolderInvitationBody,
        response: { 200: Envelope(HolderInvitationSchema), ...errorResponses },
      },
    },
    async (request) => ok(await deps.users.invite(request.params.id, request.body, actorOf(request))),
  );
  holderAccountRoutes(app, deps);
}

/**
 * A holder's page accounts (docs/decisions.md "Payouts on the holder's page"): the list, and an
 * operator's disable (their sessions end at once) or enable; writes `pool.manage`, audited.
 */
function holderAccountRoutes(app: App, deps: { users: HolderUsers }) {
  const ok = <T>(data: T) => ({ success: true as const, data });
  app.get(
    '/admin/holders/:id/accounts',
    {
      schema: {
        tags,
        summary: "A holder's accounts on their own page",
        params: HolderIdParams,
        response: { 200: Envelope(Type.Array(HolderAccountSchema)), ...errorResponses },
      },
    },
    async (request) => ok(await deps.users.accounts(request.params.id)),
  );
  for (const action of ['disable', 'enable'] as const) {
    app.post(
      `/admin/holders/:id/accounts/:user_id/${action}`,
      {
        schema: {
          tags,
          summary:
            action === 'disable'
              ? "Disable a holder's page account: it cannot sign in and its sessions end now"
              : "Enable a holder's page account again",
          params: HolderAccountParams,
          response: { 200: Envelope(HolderAccountSchema), ...errorResponses },
        },
      },
      async (request) =>
        ok(
          await deps.users.setAccountEnabled(
            request.params.id,
            request.params.user_id,
            action === 'enable',
            actorOf(request),
          ),
        ),
    );
  }
}
