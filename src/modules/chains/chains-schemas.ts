import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

const Block = Type.Object({ height: Type.Integer(), hash: Nullable(Type.String()) });

/** A chain watcher as `GET /admin/chains` and `PUT /admin/chains/{chain}` answer it (chains-service.ts). */
export const ChainSchema = Type.Object({
  chain: Type.String(),
  network: Type.String({ description: 'As orders show it: ERC20, BEP20, TRC20, TON, BTC, LTC' }),
  enabled: Type.Boolean({ description: 'Has a URL and was not disabled' }),
  url: Nullable(Type.String({ description: 'Credentials, query and key-like path parts replaced by ***' })),
  api_key_set: Type.Boolean({ description: 'The key itself is never shown' }),
  head: Nullable(Block),
  cursor: Nullable(Block),
  lag_blocks: Nullable(Type.Integer({ description: 'head - cursor' })),
  poll_seconds: Type.Integer(),
  confirmations: Type.Integer({ description: "The payment's own block counts as 1" }),
  token_contract: Nullable(Type.String()),
  chain_id: Nullable(Type.Integer()),
  last_error: Nullable(Type.Object({ at: Type.String(), message: Type.String() })),
  last_success_at: Nullable(Type.String()),
  recent_transfers: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    description: 'The latest transfers seen (tx_hash, position, address, asset, amount, height, at)',
  }),
});
