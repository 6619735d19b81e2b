import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

// Bodies and answers of the holders' admin routes (holders-admin-routes.ts), exactly as
// holders-views.ts and holders-service.ts build them. Amounts are decimal strings.

const Dec = (description: string) => Type.String({ description });
/** An amount in a body: a JSON number or a decimal string (read by `parseAmount`, never as a float). */
export const AmountInput = Type.Union([Type.Number(), Type.String({ maxLength: 32 })]);

export const HolderIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const ContactsSchema = Type.Object(
  {
    phone: Type.Optional(Type.String({ maxLength: 64 })),
    telegram: Type.Optional(Type.String({ maxLength: 64 })),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

const holderFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  contacts: Type.Optional(ContactsSchema),
  commission_percent: Type.Optional(AmountInput),
  exposure_limit: Type.Optional(Nullable(AmountInput)),
  security_deposit: Type.Optional(Nullable(AmountInput)),
  payouts_allowed: Type.Optional(
    Type.Boolean({ description: 'Whether PAYOUTs may be given to this holder to send from their card' }),
  ),
};

/** `POST /admin/holders`. */
export const HolderCreateBody = Type.Object(holderFields, { additionalProperties: false });

/** `PATCH /admin/holders/{id}`. */
export const HolderPatchBody = Type.Object(
  {
    ...holderFields,
    name: Type.Optional(holderFields.name),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')])),
  },
  { additionalProperties: false },
);

/** `PUT /admin/holders/{id}/requisites`: the holder's requisites become exactly these. */
export const HolderRequisitesBody = Type.Object(
  {
    requisite_ids: Type.Array(Type.String({ format: 'uuid' }), { maxItems: 500 }),
    move: Type.Optional(
      Type.Boolean({
        description:
          'Move requisites that belong to another holder (default false: HOLDER_ASSIGNMENT_CONFLICT naming them)',
      }),
    ),
  },
  { additionalProperties: false },
);

const Currency = Type.Optional(Type.String({ pattern: '^[A-Z]{3,5}$', description: 'Default RUB' }));

/** `POST /admin/holders/{id}/settlements`. */
export const SettlementBody = Type.Object(
  {
    amount: AmountInput,
    currency: Currency,
    method: Type.Union([Type.Literal('bank_transfer'), Type.Literal('cash'), Type.Literal('usdt')]),
    reference: Type.String({ minLength: 1, maxLength: 500 }),
    tx_hash: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);

/** `GET /admin/holders/{id}/settlements/{settlement_id}/proof`. */
export const SettlementProofParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  settlement_id: Type.String({ maxLength: 64 }),
});

/** `POST /admin/holders/{id}/corrections` (admins only). */
export const CorrectionBody = Type.Object(
  { amount: AmountInput, currency: Currency, reason: Type.String({ minLength: 1, maxLength: 500 }) },
  { additionalProperties: false },
);

/** `GET /admin/holders/{id}/statement`. */
export const StatementQuery = Type.Object({
  currency: Currency,
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
});

export const HolderSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  contacts: ContactsSchema,
  status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
  commission_percent: Dec('Percent of what its requisites receive'),
  exposure_limit: Nullable(Dec('RUB; null: no limit')),
  security_deposit: Nullable(Dec('RUB')),
  payouts_allowed: Type.Boolean({ description: 'PAYOUTs may be given to this holder' }),
  from_migration: Type.Boolean({
    description: 'Made by the migration from a requisites holder name: review it',
  }),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const HolderListItem = Type.Intersect([
  HolderSchema,
  Type.Object({
    held: Dec('RUB the holder holds'),
    pending: Dec('RUB of pending PAYINs on their requisites (counted against the limit)'),
    last_settlement_at: Nullable(Type.String({ description: 'ISO 8601 UTC; null: never settled' })),
  }),
]);

export const BooksSchema = Type.Object({
  currency: Type.String(),
  received: Dec('What the holder’s requisites received for confirmed PAYINs'),
  settled: Dec('What the holder handed over'),
  corrections: Dec('Signed sum of admins’ corrections'),
  paid_out: Dec('Payouts the holder sent from their card (docs/decisions.md "Payouts through holders")'),
  held: Dec('received − settled − paid_out + corrections'),
  commission: Dec('Commission accrued to the holder'),
});

export const HolderRequisiteSchema = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  bank: Type.String(),
  address: Type.String(),
  currency: Type.String(),
  enabled: Type.Boolean(),
  paused_reason: Nullable(Type.String()),
});

export const SettlementSchema = Type.Object({
  id: Type.String(),
  holder_id: Type.String(),
  kind: Type.Union([Type.Literal('settlement'), Type.Literal('correction')]),
  currency: Type.String(),
  amount: Dec('Signed for a correction; a settlement is positive and reduces held'),
  method: Nullable(Type.String()),
  reference: Nullable(Type.String()),
  tx_hash: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  proof: Nullable(
    Type.Object(
      {
        content_type: Type.String(),
        size_bytes: Type.Integer(),
        url: Type.String({ description: 'GET it (pool.read) to download the file' }),
      },
      { description: 'The proof file recorded with a settlement; null: the reference alone' },
    ),
  ),
  journal_id: Type.String(),
  created_by: Type.String(),
  created_at: Type.String(),
});

export const HolderDetailSchema = Type.Intersect([
  HolderSchema,
  Type.Object({
    books: BooksSchema,
    pending: Dec('RUB of pending PAYINs on their requisites (counted against the limit)'),
    blocked: Type.Boolean({
      description:
        'Suspended, or holding more than exposure_limit + security_deposit: its requisites are paused',
    }),
    requisites: Type.Array(HolderRequisiteSchema),
    settlements: Type.Array(SettlementSchema),
  }),
]);

export const MovementSchema = Type.Intersect([SettlementSchema, Type.Object({ books: BooksSchema })]);

export const StatementSchema = Type.Object({
  holder_id: Type.String(),
  currency: Type.String(),
  from: Type.String(),
  to: Type.String(),
  opening: Dec('Held before from'),
  entries: Type.Array(
    Type.Object({
      id: Type.Integer(),
      created_at: Type.String(),
      kind: Type.String(),
      order_id: Nullable(Type.String()),
      memo: Nullable(Type.String()),
      amount: Dec('Signed'),
      balance: Dec('Held after this entry'),
    }),
  ),
  closing: Dec('Held at to'),
});

/** `POST /admin/holders/{id}/invitations`: the login the holder will sign in with. */
export const HolderInvitationBody = Type.Object({
  login: Type.String({ minLength: 3, maxLength: 64, description: 'a-z 0-9 . _ @ + -, lower-cased' }),
});

/** The invitation: the one-time link (shown once) and its end. */
export const HolderInvitationSchema = Type.Object({
  login: Type.String(),
  invite_url: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
});

/** A holder's page account (docs/decisions.md "Payouts on the holder's page"). */
export const HolderAccountSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  login: Type.String(),
  enabled: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  last_login_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  open_sessions: Type.Integer({ description: 'live sessions; 0 once disabled' }),
});

export const HolderAccountParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  user_id: Type.String({ maxLength: 64 }),
});
