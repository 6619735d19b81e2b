import { Type } from '@sinclair/typebox';
import type { preValidationAsyncHookHandler } from 'fastify';
import { bearerToken } from '../../http/bearer.js';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { safeEqual } from '../../lib/secrets.js';
import {
  ChainNotificationResultSchema,
  CryptoOverviewSchema,
  PoolAddressesAddedSchema,
  XpubSetSchema,
} from './crypto-admin-schemas.js';
import type { CryptoService } from './crypto-service.js';

const Network = Type.Union(
  ['TRC20', 'ERC20', 'BEP20', 'TON', 'BTC', 'LTC'].map((n) => Type.Literal(n)),
  { description: 'The network as createOrder shows it in payment_details.holder_name' },
);

/** Bearer `CHAIN_WATCHER_TOKEN`; without a configured token the endpoint refuses everyone. */
function watcherAuth(token: string | undefined): preValidationAsyncHookHandler {
  return async (request) => {
    const given = bearerToken(request);
    if (!token || !given || !safeEqual(given, token)) throw new AppError('UNAUTHORIZED');
    if (request.bodyParseError) throw new AppError('INVALID_JSON');
  };
}

/** `POST /chain/notifications`: a chain watcher reports a payment to a deposit address (docs/decisions.md section 8). */
export function chainRoutes(app: App, deps: { crypto: CryptoService; watcherToken: string | undefined }) {
  app.post(
    '/chain/notifications',
    {
      preValidation: watcherAuth(deps.watcherToken),
      schema: {
        tags: ['chain'],
        body: Type.Object({
          network: Network,
          address: Type.String({ minLength: 1, maxLength: 128 }),
          tx_hash: Type.String({
            minLength: 1,
            maxLength: 200,
            description:
              '64 hex characters (0x and upper case accepted), or base64 on TON; stored as lower-case hex',
          }),
          position: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 2_147_483_647,
              description:
                "The transfer's index inside its own transaction (its log's position among the transaction's logs, or the output index); default 0. Never the block-wide log index.",
            }),
          ),
          amount: Type.Union([
            Type.String({ pattern: '^\\d{1,15}(\\.\\d{1,18})?$' }),
            Type.Number({ exclusiveMinimum: 0 }),
          ]),
          confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
        response: { 200: Envelope(ChainNotificationResultSchema), ...errorResponses },
      },
    },
    async (request) => {
      const b = request.body;
      return {
        success: true as const,
        data: await deps.crypto.chainNotification({
          network: b.network,
          address: b.address,
          txHash: b.tx_hash,
          position: b.position,
          amount: String(b.amount),
          confirmations: b.confirmations ?? null,
        }),
      };
    },
  );
}

/** Admin: extended public keys, TON pool addresses, transactions needing attention (docs/decisions.md section 8). */
export function cryptoAdminRoutes(app: App, deps: { crypto: CryptoService }) {
  app.put(
    '/admin/crypto/xpubs',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set the account xpub of btc, ltc, evm or tron; answers the address at index 0 to check',
        body: Type.Object({
          network: Type.String({ maxLength: 10 }),
          xpub: Type.String({ minLength: 20, maxLength: 200 }),
        }),
        response: { 200: Envelope(XpubSetSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.crypto.setXpub(request.body, actorOf(request)),
    }),
  );
  app.post(
    '/admin/crypto/pool-addresses',
    {
      schema: {
        tags: ['admin'],
        body: Type.Object({
          network: Type.String({ maxLength: 10 }),
          addresses: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 10_000 }),
        }),
        response: { 200: Envelope(PoolAddressesAddedSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.crypto.addPoolAddresses(request.body, actorOf(request)),
    }),
  );
  app.get(
    '/admin/crypto',
    { schema: { tags: ['admin'], response: { 200: Envelope(CryptoOverviewSchema), ...errorResponses } } },
    async () => ({ success: true as const, data: await deps.crypto.overview() }),
  );
}
