// A strict recorder in front of a real EVM node: every JSON-RPC request is recorded, and its params
// are decoded as geth decodes them; a param geth would refuse gets geth's own answer (code -32602,
// "invalid argument N: ..."), never the node's leniency (Anvil, Hardhat and Ganache accept hashes
// without 0x or quantities with leading zeros that geth, erigon and hosted providers refuse).
// The rules and messages follow go-ethereum (commit 02b73d4e, 2026-08-20):
//   - common/hexutil/hexutil.go: ErrEmptyString "empty hex string", ErrSyntax "invalid hex string",
//     ErrMissingPrefix "hex string without 0x prefix", ErrOddLength "hex string of odd length",
//     ErrEmptyNumber `hex string "0x"`, ErrLeadingZero "hex number with leading zero digits",
//     ErrUint64Range "hex number > 64 bits"; the prefix may be 0x or 0X, digits of either case.
//   - common/hexutil/json.go: UnmarshalFixedJSON (common.Hash, common.Address) wraps those as
//     json.UnmarshalTypeError: "json: cannot unmarshal <msg> into Go value of type common.Hash";
//     a wrong length is "hex string has length N, want 64 for common.Hash"; a non-string is
//     "json: cannot unmarshal non-string into Go value of type common.Hash". checkNumberText
//     (quantities) refuses no prefix, "0x" and leading zeros.
//   - rpc/types.go BlockNumber.UnmarshalJSON: tags earliest/latest/pending/finalized/safe, else
//     hexutil.DecodeUint64 (its errors unwrapped).
//   - eth/filters/api.go FilterCriteria.UnmarshalJSON: "invalid address: <err>", topics through
//     decodeTopic ("hex has invalid length N after decoding; expected 32 for topic"),
//     errInvalidTopic "invalid topic(s)".
//   - rpc/json.go parseArgumentArray: "invalid argument %d: %v", "too many arguments, want at most %d";
//     rpc/errors.go: invalid params are code -32602.
// Anything geth decodes is forwarded to the node unchanged. `lie` lets a test make the node lie.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Check = (value: unknown) => string | null;

const HEX_DIGITS = /^[0-9a-fA-F]*$/;
const has0x = (s: string) => s.length >= 2 && s[0] === '0' && (s[1] === 'x' || s[1] === 'X');

/** hexutil.Decode (addresses and topics in a filter): its error, or null. */
function decodeError(s: string): string | null {
  if (s.length === 0) return 'empty hex string';
  if (!has0x(s)) return 'hex string without 0x prefix';
  const body = s.slice(2);
  if (!HEX_DIGITS.test(body)) return 'invalid hex string';
  if (body.length % 2 !== 0) return 'hex string of odd length';
  return null;
}

/** A quantity (checkNumberText + ParseUint): its error, or null. */
function quantityError(s: string): string | null {
  if (!has0x(s)) return 'hex string without 0x prefix';
  const body = s.slice(2);
  if (body.length === 0) return 'hex string "0x"';
  if (body.length > 1 && body[0] === '0') return 'hex number with leading zero digits';
  if (!HEX_DIGITS.test(body)) return 'invalid hex string';
  if (body.length > 16) return 'hex number > 64 bits';
  return null;
}

/** A fixed-size value (common.Hash 32 bytes, common.Address 20) as UnmarshalFixedJSON decodes it. */
const fixed =
  (type: string, bytes: number): Check =>
  (v) => {
    if (typeof v !== 'string') return `json: cannot unmarshal non-string into Go value of type ${type}`;
    if (v.length > 0 && !has0x(v))
      return `json: cannot unmarshal hex string without 0x prefix into Go value of type ${type}`;
    const body = v.slice(2);
    if (body.length % 2 !== 0)
      return `json: cannot unmarshal hex string of odd length into Go value of type ${type}`;
    if (body.length !== bytes * 2)
      return `hex string has length ${body.length}, want ${bytes * 2} for ${type}`;
    if (!HEX_DIGITS.test(body))
      return `json: cannot unmarshal invalid hex string into Go value of type ${type}`;
    return null;
  };
const hash = fixed('common.Hash', 32);
const address = fixed('common.Address', 20);

const TAGS = new Set(['earliest', 'latest', 'pending', 'finalized', 'safe']);
const blockNumber: Check = (v) => (typeof v === 'string' && TAGS.has(v) ? null : quantityError(String(v)));
const bool: Check = (v) =>
  typeof v === 'boolean'
    ? null
    : `json: cannot unmarshal ${typeof v === 'string' ? 'string' : 'number'} into Go value of type bool`;
const bytesData: Check = (v) => {
  if (typeof v !== 'string') return 'json: cannot unmarshal non-string into Go value of type hexutil.Bytes';
  if (!has0x(v))
    return 'json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes';
  if (v.length % 2 !== 0)
    return 'json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes';
  return HEX_DIGITS.test(v.slice(2))
    ? null
    : 'json: cannot unmarshal invalid hex string into Go value of type hexutil.Bytes';
};

function filterError(v: unknown): string | null {
  const f = v as { fromBlock?: unknown; toBlock?: unknown; address?: unknown; topics?: unknown };
  if (typeof f !== 'object' || f === null)
    return 'json: cannot unmarshal non-object into Go value of type filters.FilterCriteria';
  for (const key of ['fromBlock', 'toBlock'] as const) {
    if (f[key] !== undefined && f[key] !== null) {
      const e = blockNumber(f[key]);
      if (e) return e;
    }
  }
  const addresses =
    f.address === undefined || f.address === null ? [] : Array.isArray(f.address) ? f.address : [f.address];
  for (const [i, a] of addresses.entries()) {
    const e =
      typeof a === 'string'
        ? (decodeError(a) ??
          (a.length !== 42
            ? `hex has invalid length ${(a.length - 2) / 2} after decoding; expected 20 for address`
            : null))
        : 'non-string';
    if (e) return Array.isArray(f.address) ? `invalid address at index ${i}: ${e}` : `invalid address: ${e}`;
  }
  const topics = (f.topics ?? []) as unknown[];
  if (!Array.isArray(topics)) return 'invalid topic(s)';
  if (topics.length > 4) return 'exceed max topics';
  for (const t of topics) {
    for (const one of t === null ? [] : Array.isArray(t) ? t : [t]) {
      if (one === null) continue;
      if (typeof one !== 'string') return 'invalid topic(s)';
      const e =
        decodeError(one) ??
        (one.length !== 66
          ? `hex has invalid length ${(one.length - 2) / 2} after decoding; expected 32 for topic`
          : null);
      if (e) return e;
    }
  }
  return null;
}

/** Each method's argument types, in order (internal/ethapi/api.go, eth/filters/api.go). */
const METHODS: Record<string, Check[]> = {
  eth_chainId: [],
  eth_blockNumber: [],
  eth_getBlockByNumber: [blockNumber, bool],
  eth_getTransactionReceipt: [hash],
  eth_getTransactionByHash: [hash],
  eth_getLogs: [filterError],
  eth_getCode: [address, blockNumber],
  eth_call: [
    (v) => {
      const a = v as { to?: unknown; data?: unknown; input?: unknown };
      if (typeof a !== 'object' || a === null)
        return 'json: cannot unmarshal non-object into Go value of type ethapi.TransactionArgs';
      return (a.to !== undefined ? address(a.to) : null) ?? (a.data !== undefined ? bytesData(a.data) : null);
    },
    blockNumber,
  ],
};

/**
 * Is every hex string of a param written as we promise: `0x` and lower-case digits (quantities
 * without leading zeros are checked by geth's own rules above; geth itself also takes 0X and upper
 * case, which this records as not canonical).
 */
function canonical(v: unknown): boolean {
  if (typeof v === 'string') return !/^0[xX]/.test(v) || /^0x[0-9a-f]*$/.test(v);
  if (Array.isArray(v)) return v.every(canonical);
  if (typeof v === 'object' && v !== null) return Object.values(v).every(canonical);
  return true;
}

export interface RecordedCall {
  method: string;
  params: unknown[];
  /** geth's refusal of these params, or null when geth decodes them. */
  refused: string | null;
  /** Every hex string in the params written as we promise: 0x + lower case, no leading zeros. */
  canonical: boolean;
}

/**
 * Starts the recorder on 127.0.0.1 (port 0) in front of `upstream`. `lie(method, params, result)`
 * may return (or resolve to) another result: a node that lies; undefined keeps the node's.
 */
export async function startGethStrict(upstream: string) {
  const calls: RecordedCall[] = [];
  let lie: ((method: string, params: unknown[], result: unknown) => unknown | Promise<unknown>) | null = null;

  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', async () => {
      const body = JSON.parse(text) as { id: unknown; method: string; params?: unknown[] };
      const params = body.params ?? [];
      const checks = METHODS[body.method];
      let refused: string | null = null;
      if (checks) {
        if (params.length > checks.length) refused = `too many arguments, want at most ${checks.length}`;
        else
          for (const [i, check] of checks.entries()) {
            if (params[i] === undefined) continue;
            const e = check(params[i]);
            if (e) {
              refused = `invalid argument ${i}: ${e}`;
              break;
            }
          }
      }
      calls.push({ method: body.method, params, refused, canonical: canonical(params) });
      const reply = (payload: Record<string, unknown>) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...payload }));
      if (refused) return reply({ error: { code: -32602, message: refused } });
      let answer: { result?: unknown; error?: unknown };
      try {
        const upstreamRes = await fetch(upstream, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: text,
        });
        answer = (await upstreamRes.json()) as { result?: unknown; error?: unknown };
      } catch (err) {
        return reply({ error: { code: -32603, message: `upstream: ${(err as Error).message}` } });
      }
      if (answer.error !== undefined) return reply({ error: answer.error });
      const told = await lie?.(body.method, params, answer.result);
      reply({ result: told === undefined ? answer.result : told });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    calls,
    /** Calls geth would have refused. */
    refused: () => calls.filter((c) => c.refused !== null),
    /** Calls with a param not written canonically (even where geth would accept it). */
    nonCanonical: () => calls.filter((c) => !c.canonical),
    setLie(fn: typeof lie) {
      lie = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type GethStrict = Awaited<ReturnType<typeof startGethStrict>>;
