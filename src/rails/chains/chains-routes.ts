import { Type } from '@sinclair/typebox';
import { actorOf } from '../../http/request-context.js';
import { type App, Envelope, errorResponses, Nullable } from '../../http/schemas.js';
import { ChainSchema } from './chains-schemas.js';
import type { ChainsService } from './chains-service.js';

const ChainParam = Type.Object({
  chain: Type.Union(
    ['ethereum', 'bsc', 'tron', 'ton', 'bitcoin', 'litecoin'].map((c) => Type.Literal(c)),
    { description: 'The chain whose watcher this is' },
  ),
});

/** Admin: the built-in chain watchers (docs/decisions.md sections 25 and 34). */
export function chainsAdminRoutes(app: App, deps: { chains: ChainsService }) {
  app.get(
    '/admin/chains',
    {
      schema: {
        tags: ['admin'],
        summary: "Each chain watcher's settings in force, head, cursor, lag, last error and last success",
        response: { 200: Envelope(Type.Array(ChainSchema)), ...errorResponses },
      },
    },
    async () => ({ success: true as const, data: await deps.chains.list() }),
  );
  app.put(
    '/admin/chains/:chain',
    {
      schema: {
        tags: ['admin'],
        summary: 'Configure a chain watcher: omitted fields keep their values, null clears one',
        params: ChainParam,
        body: Type.Object(
          {
            url: Type.Optional(
              Nullable(
                Type.String({
                  pattern: '^https?://[^\\s]+$',
                  maxLength: 500,
                  description: 'Your node or provider (trusted configuration: private networks allowed)',
                }),
              ),
            ),
            api_key: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 500 }))),
            confirmations: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))),
            token_contract: Type.Optional(Nullable(Type.String({ minLength: 20, maxLength: 100 }))),
            poll_seconds: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3600 }))),
            start_height: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
            chain_id: Type.Optional(
              Nullable(
                Type.Integer({
                  minimum: -2_147_483_648,
                  maximum: 1e15,
                  description:
                    'The network the URL must serve: eth_chainId on Ethereum, BSC and TRON (e.g. 11155111 for Sepolia, 3448148188 for TRON Nile), global_id on TON (-3 for the testnet); null: the mainnet',
                }),
              ),
            ),
            genesis_hash: Type.Optional(
              Nullable(
                Type.String({
                  pattern: '^[0-9a-fA-F]{64}$',
                  description:
                    'Bitcoin, Litecoin: the genesis block hash of a test network; null: the mainnet',
                }),
              ),
            ),
            rps: Type.Optional(
              Nullable(
                Type.Integer({
                  minimum: 1,
                  maximum: 1000,
                  description:
                    "Requests per second to the provider; null: CHAIN_<CHAIN>_RPS or the provider's free plan",
                }),
              ),
            ),
            enabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(ChainSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deps.chains.configure(request.params.chain, request.body, actorOf(request)),
    }),
  );
}
