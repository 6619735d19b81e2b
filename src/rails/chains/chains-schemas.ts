import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

const Block = Type.Object({ height: Type.Integer(), hash: Nullable(Type.String()) });

/** A chain watcher as `GET /admin/chains` and `PUT /admin/chains/{chain}` answer it (chains-service.ts). */
export const ChainSchema = Type.Object({
  chain: Type.String(),
  network: Type.String({ description: 'As orders show it: ERC20, BEP20, TRC20, TON, BTC, LTC' }),
  enabled: Type.Boolean({ description: 'Has a URL and was not disabled' }),
  url: Nullable(
    Type.String({
      description:
        'Credentials, query and key-like path parts replaced by *** (as in every answer, log and audit entry)',
    }),
  ),
  api_key_set: Type.Boolean({ description: 'The key itself is never shown' }),
  head: Nullable(Block),
  cursor: Nullable(Block),
  lag_blocks: Nullable(Type.Integer({ description: 'head - cursor' })),
  poll_seconds: Type.Integer(),
  confirmations: Type.Integer({ description: "The payment's own block counts as 1" }),
  token_contract: Nullable(Type.String()),
  chain_id: Nullable(
    Type.Integer({ description: 'The network id the URL must serve (eth_chainId, TON global_id)' }),
  ),
  genesis_hash: Nullable(
    Type.String({ description: 'Bitcoin, Litecoin: the genesis hash the URL must serve' }),
  ),
  rps: Type.Integer({ description: 'Requests per second sent to the provider' }),
  verified: Nullable(
    Type.Object(
      {
        at: Type.String(),
        network: Type.String({ description: 'The network the URL serves, as the last check found it' }),
        token_decimals: Nullable(
          Type.Integer({ description: "The token's decimals read from its contract" }),
        ),
      },
      { description: 'The last network check (at configuration and at the first loop of each process)' },
    ),
  ),
  last_error: Nullable(
    Type.Object({
      at: Type.String(),
      message: Type.String({ description: 'URLs redacted, keys never shown' }),
    }),
  ),
  last_success_at: Nullable(Type.String()),
  recent_transfers: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    description: 'The latest transfers seen (tx_hash, position, address, asset, amount, height, at)',
  }),
});
