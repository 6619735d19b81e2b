import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

// Answers of the chain watcher's and the operators' crypto routes (crypto-routes.ts), exactly as
// crypto-payments.ts and crypto-keys.ts build them.

/** `POST /chain/notifications`: what became of the reported transfer. */
export const ChainNotificationResultSchema = Type.Object({
  outcome: Type.String({
    description:
      'credited, partial, late, unmatched, duplicate, or review (above CHAIN_CREDIT_MAX_RATIO: held for an operator, the order untouched)',
  }),
  order_id: Nullable(Type.String()),
  status: Nullable(Type.String()),
});

/** `PUT /admin/crypto/xpubs`: the key network, the address at index 0 to check, the next index. */
export const XpubSetSchema = Type.Object({
  network: Type.String({ description: 'btc, ltc, evm or tron' }),
  first_address: Type.String(),
  next_index: Type.Integer(),
});

/** `POST /admin/crypto/pool-addresses`: how many addresses were added and how many were known. */
export const PoolAddressesAddedSchema = Type.Object({
  network: Type.String(),
  added: Type.Integer(),
  skipped: Type.Integer(),
});

/** `GET /admin/crypto`: active keys, pool sizes, and the latest transfers needing an operator. */
export const CryptoOverviewSchema = Type.Object({
  xpubs: Type.Array(Type.Object({ network: Type.String(), xpub: Type.String(), next_index: Type.Integer() })),
  pools: Type.Array(Type.Object({ network: Type.String(), total: Type.Integer() })),
  transactions_needing_attention: Type.Array(
    Type.Object({
      network: Type.String(),
      tx_hash: Type.String(),
      address: Type.String(),
      amount: Type.String({ description: 'In the coin, a decimal string' }),
      order_id: Nullable(Type.String()),
      outcome: Type.String({
        description:
          'late, unmatched or partial; review (a chain credit above CHAIN_CREDIT_MAX_RATIO, held: see review_reason; an operator confirms the order with its tx_hash); from the built-in watchers also awaiting (confirmations not reached) and dropped (the provider lost it before its credit)',
      }),
      position: Type.Integer({
        description: "Log position or output index in its transaction; -1: an EVM transaction's own value",
      }),
      confirmations: Nullable(Type.Integer()),
      block_height: Nullable(Type.Integer()),
      reorged_at: Nullable(
        Type.String({
          description: 'Credited, then removed by a reorg: an alert for operators (never reversed)',
        }),
      ),
      review_reason: Nullable(Type.String({ description: 'Why a chain credit waits for an operator' })),
      vanished_at: Nullable(
        Type.String({
          description: 'Awaiting, but the provider no longer knows it since then: re-checked, then dropped',
        }),
      ),
      at: Type.String({ description: 'ISO 8601 UTC' }),
    }),
  ),
});
