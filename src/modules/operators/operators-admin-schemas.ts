import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';
import { ROLES } from './permissions.js';

// Answers of the operators' routes (operators-admin-routes.ts), exactly as operators-service.ts
// builds them (`operatorView`).

export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)));

const operatorFields = {
  id: Type.String(),
  username: Type.String(),
  role: RoleSchema,
  enabled: Type.Boolean(),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  last_login_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
  two_factor: Type.Boolean({ description: 'TOTP enrolled (mandatory for admin and payouts)' }),
  ip_allowlist: Type.Array(Type.String(), { description: 'Addresses and CIDR ranges; empty: anywhere' }),
};

/** An operator account (never its password). */
export const OperatorSchema = Type.Object(operatorFields);

/** `POST /admin/operators`: the account, with the generated password (shown once) when none was given. */
export const OperatorCreatedSchema = Type.Object({
  ...operatorFields,
  password: Type.Optional(Type.String({ description: 'Generated, shown once' })),
});

/** `POST /admin/operators/{username}/tokens`: the API token, shown once. */
export const OperatorTokenSchema = Type.Object({
  id: Type.String(),
  username: Type.String(),
  name: Type.String(),
  token: Type.String({ description: 'op_...; shown once' }),
});

/** `POST /admin/operators/{username}/tokens/revoke`. */
export const TokensRevokedSchema = Type.Object({ username: Type.String(), revoked: Type.Literal(true) });

/** `GET /admin/operators/{username}/tokens`: one token, never its value. */
export const TokenViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  revoked_at: Nullable(Type.String({ description: 'ISO 8601 UTC' })),
});

/** `GET /admin/operators/{username}/sessions`: one live console session. */
export const SessionViewSchema = Type.Object({
  id: Type.String(),
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
  expires_at: Type.String({ description: 'ISO 8601 UTC' }),
  scope: Type.Union([Type.Literal('full'), Type.Literal('enrol')], {
    description: '`enrol`: two-factor enrolment still owed',
  }),
});

/** The answer of a revocation or reset: what was done to whom. */
export const OperatorActionSchema = Type.Object({ username: Type.String(), done: Type.String() });
