import { ChainSourceError } from './chain-source.js';

// The one place where hashes, addresses and quantities are written for an EVM-style JSON-RPC node
// (Ethereum, BNB Smart Chain, java-tron's JSON-RPC) and where the node's answers are read back
// (docs/decisions.md section 34). What we send is canonical: 0x-prefixed lower-case hex, quantities
// without leading zeros, as geth's decoders require (go-ethereum common/hexutil/json.go:
// checkText wants the 0x prefix and an even length for data, checkNumberText refuses "0x" and
// leading zero digits for quantities). What a node answers is read strictly: a value of another
// shape is a ChainSourceError, never a guess.

const HEX = /^0x[0-9a-f]*$/i;

/** A non-negative integer as a JSON-RPC QUANTITY: `0x0`, `0x1f`; never `0x01`, never unprefixed. */
export function toQuantity(value: number | bigint): string {
  const n = typeof value === 'bigint' ? value : BigInt(value);
  if (typeof value === 'number' && !Number.isSafeInteger(value))
    throw new RangeError(`not an integer: ${value}`);
  if (n < 0n) throw new RangeError(`a quantity is never negative: ${n}`);
  return `0x${n.toString(16)}`;
}

/**
 * A 32-byte hash as the node takes it: `0x` + 64 lower-case hex. Accepts the stored form (64 hex
 * without 0x), a `0x` form and upper case; throws RangeError for anything else (a bug of ours, never
 * sent to a node).
 */
export function toHash(hash: string): string {
  const m = /^(?:0x)?([0-9a-f]{64})$/i.exec(hash.trim());
  if (!m?.[1]) throw new RangeError(`not a 32-byte hash: ${hash}`);
  return `0x${m[1].toLowerCase()}`;
}

/** A 20-byte address as the node takes it: `0x` + 40 lower-case hex. Throws RangeError otherwise. */
export function toAddress(address: string): string {
  const m = /^(?:0x)?([0-9a-f]{40})$/i.exec(address.trim());
  if (!m?.[1]) throw new RangeError(`not a 20-byte address: ${address}`);
  return `0x${m[1].toLowerCase()}`;
}

/** A 20-byte address as a 32-byte log topic: 12 zero bytes, then the address. */
export function addressTopic(address: string): string {
  return `0x${'0'.repeat(24)}${toAddress(address).slice(2)}`;
}

/** Call data: `0x` + an even number of lower-case hex digits. */
export function toData(data: string): string {
  if (!HEX.test(data) || data.length % 2 !== 0) throw new RangeError(`not hex data: ${data}`);
  return data.toLowerCase();
}

/** The error for a node answer of the wrong shape (`what` names the field). */
export function malformedAnswer(method: string, what: string, value: unknown): ChainSourceError {
  const shown = JSON.stringify(value) ?? String(value);
  return new ChainSourceError(
    `${method}: the node answered a malformed ${what} (${shown.length > 120 ? `${shown.slice(0, 120)}…` : shown}): nothing from this answer is used`,
  );
}

/** A QUANTITY the node answered (`0x` + hex digits; leading zeros tolerated on reading). */
export function readQuantity(method: string, what: string, value: unknown): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-f]+$/i.test(value)) throw malformedAnswer(method, what, value);
  return BigInt(value);
}

/** A QUANTITY that must fit a JavaScript number exactly (block heights, indexes). */
export function readSmallQuantity(method: string, what: string, value: unknown): number {
  const n = readQuantity(method, what, value);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw malformedAnswer(method, what, value);
  return Number(n);
}

/** A 32-byte hash the node answered, returned as `0x` + 64 lower-case hex. */
export function readHash(method: string, what: string, value: unknown): string {
  if (typeof value !== 'string' || !/^0x[0-9a-f]{64}$/i.test(value))
    throw malformedAnswer(method, what, value);
  return value.toLowerCase();
}

/** A 20-byte address the node answered, returned as `0x` + 40 lower-case hex. */
export function readAddress(method: string, what: string, value: unknown): string {
  if (typeof value !== 'string' || !/^0x[0-9a-f]{40}$/i.test(value))
    throw malformedAnswer(method, what, value);
  return value.toLowerCase();
}

/**
 * The address inside a 32-byte topic word: `0x` + 40 lower-case hex, or null when the word is not
 * an address (not 32 bytes, or any of its upper 12 bytes non-zero: a Transfer's `to` is always a
 * 20-byte address left-padded with zeros).
 */
export function addressOfTopic(topic: unknown): string | null {
  if (typeof topic !== 'string' || !/^0x0{24}[0-9a-f]{40}$/i.test(topic)) return null;
  return `0x${topic.slice(26).toLowerCase()}`;
}

/**
 * A Transfer's `data`: exactly one 32-byte word (the uint256 value), as a bigint; null for any other
 * length (a log whose data is not one word is not an ERC-20 Transfer).
 */
export function uint256OfData(data: unknown): bigint | null {
  if (typeof data !== 'string' || !/^0x[0-9a-f]{64}$/i.test(data)) return null;
  return BigInt(data);
}
