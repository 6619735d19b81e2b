import type { Address } from '@ton/core';
import { tonCore } from '../../lib/lazy-require.js';
import { normaliseTxHash } from '../crypto/index.js';
import type { RestClient } from './rest-client.js';

// toncenter API v3 answers as the watcher reads them (ton-source.ts names the server commit they
// follow): transactions, jetton transfers and the checks of an incoming payment.

export interface TonMessage {
  source: string | null;
  destination: string | null;
  value: string | null;
  /** "0x%08x" of the body's first 32 bits; null for an empty body. */
  opcode?: string | null;
  bounced?: boolean | null;
}
export interface TonTransaction {
  account: string;
  hash: string;
  mc_block_seqno: number;
  /** The transaction's time (unix seconds), as toncenter v3 gives it. */
  now?: number;
  description?: { aborted?: boolean; bounce?: unknown; credit_ph?: { credit?: string } };
  in_msg: TonMessage | null;
}
export interface TonJettonTransfer {
  destination: string;
  amount: string;
  jetton_master: string;
  transaction_hash: string;
  transaction_aborted: boolean;
  /** The transaction's time (unix seconds), as toncenter v3 gives it. */
  transaction_now?: number;
}

/** Opcodes of a plain TON transfer: no body, or a text comment (32 zero bits then the text). */
const PLAIN_TRANSFER = new Set([null, undefined, '0x00000000']);

/**
 * The nanotons a plain incoming transfer paid: the message value (what the payer sent; a storage
 * debt the account owed, taken in the credit phase, is the receiver's cost, not a short payment),
 * else the credit phase's credit. 0 for an external message, a message to
 * another account, a bounced message coming back, one the account bounced (the value went back), and
 * a message with another opcode: a jetton wallet's transfer_notification (0x7362d09c) or excesses
 * (0xd53276db) carry a little TON with every USDT payment, and are not a TON payment.
 */
export function incomingCoin(tx: TonTransaction, ours: Address): bigint {
  const msg = tx.in_msg;
  if (!msg?.source || !msg.destination || msg.bounced) return 0n;
  if (!PLAIN_TRANSFER.has(msg.opcode)) return 0n;
  if (!sameAddress(msg.destination, ours)) return 0n;
  if (tx.description?.bounce) return 0n;
  const credit = msg.value ?? tx.description?.credit_ph?.credit;
  return credit && /^\d+$/.test(credit) ? BigInt(credit) : 0n;
}

export function parseTon(address: string): Address | null {
  try {
    // @ton/core is loaded when a TON address is first parsed: a service without TON never loads it.
    return tonCore().Address.parse(address.trim());
  } catch {
    return null;
  }
}

export function sameAddress(text: string, address: Address): boolean {
  const other = parseTon(text);
  return other?.equals(address) ?? false;
}

/** A chain time in unix seconds as a Date, or undefined when the answer gives none that is sane. */
export function chainTimeOf(seconds: unknown): Date | undefined {
  return typeof seconds === 'number' && Number.isSafeInteger(seconds) && seconds > 0
    ? new Date(seconds * 1000)
    : undefined;
}

/** A 32-byte hash given as base64 (toncenter) or hex, as the crypto module keys it (lower-case hex). */
export function hexOfHash(value: unknown): string | null {
  return typeof value === 'string' ? (normaliseTxHash('TON', value) ?? null) : null;
}

export function txList(client: RestClient, path: string, body: unknown): TonTransaction[] {
  const list = (body as { transactions?: unknown })?.transactions;
  if (!Array.isArray(list)) throw client.malformed(path, 'no `transactions` list', JSON.stringify(body));
  for (const tx of list as Array<Partial<TonTransaction> | null>) {
    const ok =
      typeof tx === 'object' &&
      tx !== null &&
      typeof tx.hash === 'string' &&
      hexOfHash(tx.hash) !== null &&
      Number.isSafeInteger(tx.mc_block_seqno) &&
      (tx.in_msg === null || (typeof tx.in_msg === 'object' && tx.in_msg !== undefined));
    if (!ok)
      throw client.malformed(
        path,
        'a transaction without hash, mc_block_seqno or in_msg',
        JSON.stringify(tx),
      );
  }
  return list as TonTransaction[];
}

export function jettonList(client: RestClient, path: string, body: unknown): TonJettonTransfer[] {
  const list = (body as { jetton_transfers?: unknown })?.jetton_transfers;
  if (!Array.isArray(list)) throw client.malformed(path, 'no `jetton_transfers` list', JSON.stringify(body));
  for (const j of list as Array<Partial<TonJettonTransfer> | null>) {
    const ok =
      typeof j === 'object' &&
      j !== null &&
      typeof j.destination === 'string' &&
      typeof j.jetton_master === 'string' &&
      typeof j.amount === 'string' &&
      /^\d+$/.test(j.amount) &&
      typeof j.transaction_hash === 'string' &&
      typeof j.transaction_aborted === 'boolean';
    if (!ok)
      throw client.malformed(
        path,
        'a jetton transfer without destination, integer amount or transaction',
        JSON.stringify(j),
      );
  }
  return list as TonJettonTransfer[];
}
