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
  username: Type.String(),
  name: Type.String(),
  token: Type.String({ description: 'op_...; shown once' }),
});

/** `POST /admin/operators/{username}/tokens/revoke`. */
export const TokensRevokedSchema = Type.Object({ username: Type.String(), revoked: Type.Literal(true) });
