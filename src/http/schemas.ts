import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

/** The Fastify instance with TypeBox typing, as every route module receives it. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The error envelope (docs/decisions.md section 2). */
export const ErrorResponse = Type.Object(
  {
    success: Type.Literal(false),
    ok: Type.Literal(false),
    status: Type.Integer(),
    message: Type.String({ description: 'Error code, e.g. ORDER_AMOUNT_BELOW_MIN_LIMIT' }),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), problem: Type.String() }))),
    error: Type.Optional(Type.String({ description: 'Only on 429: "Too many requests, slow down."' })),
  },
  { $id: 'ErrorResponse' },
);

/** Error answers every route may give. */
export const errorResponses = {
  '4xx': ErrorResponse,
  '5xx': ErrorResponse,
} as const;

/** `{success: true, data}` (docs/decisions.md section 2, "other endpoints"). */
export const Envelope = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

export const MerchantHeaders = Type.Object({
  'client-api-key': Type.Optional(Type.String({ description: 'The merchant API key in plain text' })),
  'x-api-key': Type.Optional(Type.String({ description: 'hex SHA-256 of "<API_KEY>|<body>"' })),
});
