// A loopback fake of toncenter's API v3 (toncenter.com/api/v3, an operator's ton-indexer), following
// its server: https://github.com/toncenter/ton-index-go (commit 0fa4fff, 2025-03-05):
//   - main.go: GET /api/v3/masterchainInfo, /api/v3/blocks (workchain, shard, seqno, limit, offset,
//     sort), /api/v3/transactions (account [many], hash, limit <= 1000 default 10, offset, sort
//     desc by lt by default), /api/v3/jetton/transfers (owner_address [many], jetton_master,
//     direction in|out, limit, offset, sort). Addresses are taken "in any form" (raw, base64,
//     base64url); hashes in hex or base64. The key comes as the X-API-Key header or api_key query.
//   - index/response.go: {"last","first"} blocks; {"blocks":[...]}; {"transactions":[...],
//     "address_book":{}}; {"jetton_transfers":[...],"address_book":{},"metadata":{}}; errors as
//     {"error": message, "code": status}.
//   - index/models.go: Block (workchain, shard as a hex string, seqno, root_hash and file_hash in
//     base64, gen_utime/start_lt/end_lt as strings...), Transaction (account raw upper-case "0:...",
//     hash base64, lt string, now, mc_block_seqno, description {type, aborted, credit_ph {credit},
//     compute_ph, bounce}, in_msg {hash, source, destination, value string, opcode "0x%08x" or null,
//     bounce, bounced, ...}, out_msgs), JettonTransfer (query_id, source, destination, amount string,
//     source_wallet, jetton_master, transaction_hash, transaction_lt, transaction_now,
//     transaction_aborted, ...), JettonMaster (address, total_supply, mintable, admin_address,
//     jetton_content, jetton_wallet_code_hash, code_hash, data_hash, last_transaction_lt) in
//     {"jetton_masters": [...], "address_book", "metadata"}.
//   - index/crud.go limitQuery: a limit above 1000 is 422 "limit is not allowed: N > 1000".
//   - docs/swagger.json: `account` (transactions) and `owner_address` (jetton transfers, max 1000)
//     are lists: one call for many addresses.
// Rate limits: docs.ton.org "Rate limits" (TON Center): 1 request a second without an API key, 10
// on the free plan with one; over it 429 with {"ok": false, "result": "Ratelimit exceed", "code": 429}.
// With `rps` the fake counts each key's requests in the last second and answers that 429 over it.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Address } from '@ton/core';
import { tonAddress } from '../ton-pool.js';

export { tonAddress };

const SHARD = '8000000000000000';

const raw = (a: string) => Address.parse(a).toRawString().toUpperCase();
const b64 = () => randomBytes(32).toString('base64');

interface FakeBlock {
  seqno: number;
  root_hash: string;
  gen_utime: number;
}
type Row = Record<string, unknown> & { account: string; lt: string; mc_block_seqno: number; hash: string };
interface JettonRow {
  owner: string;
  master: string;
  body: Record<string, unknown>;
}
/** What the next requests get instead of an answer. */
export type TonFailure = 429 | 500 | 'malformed';

export type TonFake = Awaited<ReturnType<typeof startTonFake>>;

/**
 * Starts the fake on 127.0.0.1 (port 0) with masterchain blocks 1..`blocks`. The API lives under
 * `/api/v3` (`url` ends with it). Payments are added with `payTon` and `payJetton`, each in a new
 * masterchain block; `failNext` makes the next requests fail; every request is recorded.
 */
export async function startTonFake(
  opts: {
    blocks?: number;
    rps?: { withKey: number; withoutKey: number };
    masters?: Record<string, unknown>;
    /** The clock block times follow (ms); each block is at least a second after the one before. */
    now?: () => number;
  } = {},
) {
  const clockNow = opts.now ?? Date.now;
  const blocks: FakeBlock[] = [];
  const masters = new Map<string, Record<string, unknown>>(
    Object.entries(opts.masters ?? {}).map(([a, content]) => [raw(a), content as Record<string, unknown>]),
  );
  /** Request times per key ('' without a key), for the rate limit. */
  const seenAt = new Map<string, number[]>();
  let rateLimited = 0;
  const txs: Row[] = [];
  const jettons: JettonRow[] = [];
  const requests: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const failures: TonFailure[] = [];
  let lt = 1_000_000n;

  const mine = (): FakeBlock => {
    const block = {
      seqno: blocks.length + 1,
      root_hash: b64(),
      gen_utime: Math.max((blocks.at(-1)?.gen_utime ?? 0) + 1, Math.floor(clockNow() / 1000)),
    };
    blocks.push(block);
    return block;
  };
  for (let i = 0; i < (opts.blocks ?? 10); i++) mine();

  const blockJson = (b: FakeBlock) => ({
    workchain: -1,
    shard: SHARD,
    seqno: b.seqno,
    root_hash: b.root_hash,
    file_hash: b64(),
    global_id: -239,
    version: 0,
    after_merge: false,
    before_split: false,
    after_split: false,
    want_merge: false,
    want_split: false,
    key_block: false,
    vert_seqno_incr: false,
    flags: 1,
    gen_utime: String(b.gen_utime),
    start_lt: String(BigInt(b.seqno) * 1_000_000n),
    end_lt: String(BigInt(b.seqno) * 1_000_000n + 10n),
    validator_list_hash_short: 0,
    gen_catchain_seqno: 0,
    min_ref_mc_seqno: b.seqno - 1,
    prev_key_block_seqno: 0,
    vert_seqno: 1,
    master_ref_seqno: 0,
    rand_seed: b64(),
    created_by: b64(),
    tx_count: 1,
    masterchain_block_ref: { workchain: -1, shard: SHARD, seqno: b.seqno },
    prev_blocks: [{ workchain: -1, shard: SHARD, seqno: b.seqno - 1 }],
  });

  /** A transaction on `account` in a new masterchain block, receiving `inMsg`. */
  const addTx = (
    account: string,
    inMsg: Record<string, unknown> | null,
    description: Record<string, unknown>,
  ): Row => {
    const block = mine();
    lt += 1000n;
    const row: Row = {
      account: raw(account),
      hash: b64(),
      lt: String(lt),
      now: block.gen_utime,
      mc_block_seqno: block.seqno,
      trace_id: b64(),
      prev_trans_hash: b64(),
      prev_trans_lt: String(lt - 1000n),
      orig_status: 'active',
      end_status: 'active',
      total_fees: '0',
      total_fees_extra_currencies: {},
      description: { type: 'ord', aborted: false, destroyed: false, credit_first: true, ...description },
      block_ref: { workchain: 0, shard: SHARD, seqno: block.seqno * 3 },
      in_msg: inMsg,
      out_msgs: [],
      account_state_before: null,
      account_state_after: null,
    };
    txs.push(row);
    return row;
  };

  const message = (from: string | null, to: string, value: bigint, extra: Record<string, unknown> = {}) => ({
    hash: b64(),
    source: from ? raw(from) : null,
    destination: raw(to),
    value: String(value),
    value_extra_currencies: {},
    fwd_fee: '0',
    ihr_fee: '0',
    created_lt: String(lt),
    created_at: '1760000000',
    opcode: null,
    ihr_disabled: true,
    bounce: false,
    bounced: false,
    import_fee: null,
    message_content: { hash: b64(), body: 'te6cckEBAQEAAgAAAEysuc0=', decoded: null },
    init_state: null,
    ...extra,
  });

  /**
   * `nanotons` sent to `to` by a wallet, in a new block. `opcode`: the body's (a plain transfer has
   * none); `bounced`: the account bounced it (a bounce phase, the value went back).
   */
  const payTon = (
    to: string,
    nanotons: bigint,
    o: { opcode?: string; bounced?: boolean; from?: string | null; storageDue?: bigint } = {},
  ): Row => {
    const from = o.from === undefined ? tonAddress() : o.from;
    return addTx(to, message(from, to, nanotons, { opcode: o.opcode ?? null }), {
      // A storage debt the account owed is collected from the incoming value (due_fees_collected).
      credit_ph: o.storageDue
        ? { due_fees_collected: String(o.storageDue), credit: String(nanotons - o.storageDue) }
        : { credit: String(nanotons) },
      ...(o.bounced ? { aborted: true, bounce: { type: 'ok' } } : {}),
    });
  };

  const page = <T>(rows: T[], q: URLSearchParams): T[] => {
    const limit = Math.min(Number(q.get('limit') ?? 10), 1000);
    const offset = Number(q.get('offset') ?? 0);
    return rows.slice(offset, offset + limit);
  };
  const byLt = <T>(rows: T[], ltOf: (r: T) => bigint, q: URLSearchParams): T[] => {
    const asc = [...rows].sort((a, b) => (ltOf(a) < ltOf(b) ? -1 : 1));
    return q.get('sort') === 'asc' ? asc : asc.reverse();
  };
  const hashOf = (text: string) =>
    /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex').toString('base64') : text;

  function answer(path: string, q: URLSearchParams): [number, unknown] {
    const limit = Number(q.get('limit') ?? 10);
    if (limit > 1000) return [422, { error: `limit is not allowed: ${limit} > 1000`, code: 422 }];
    if (path === '/api/v3/masterchainInfo')
      return [200, { last: blockJson(blocks.at(-1) as FakeBlock), first: blockJson(blocks[0] as FakeBlock) }];
    if (path === '/api/v3/blocks') {
      const seqno = Number(q.get('seqno'));
      const found = q.get('workchain') === '-1' ? blocks.filter((b) => b.seqno === seqno) : [];
      return [200, { blocks: found.map(blockJson) }];
    }
    if (path === '/api/v3/transactions') {
      const accounts = q.getAll('account').map(raw);
      const hash = q.get('hash');
      let rows = txs;
      if (accounts.length > 0) rows = rows.filter((r) => accounts.includes(r.account));
      if (hash) rows = rows.filter((r) => r.hash === hashOf(hash));
      return [
        200,
        {
          transactions: page(
            byLt(rows, (r) => BigInt(r.lt), q),
            q,
          ),
          address_book: {},
        },
      ];
    }
    if (path === '/api/v3/jetton/masters') {
      const wanted = q.getAll('address').map(raw);
      const found = [...masters.entries()].filter(([a]) => wanted.length === 0 || wanted.includes(a));
      return [
        200,
        {
          jetton_masters: page(found, q).map(([address, content]) => ({
            address,
            total_supply: '1000000000000000',
            mintable: true,
            admin_address: raw(tonAddress()),
            jetton_content: content,
            jetton_wallet_code_hash: b64(),
            code_hash: b64(),
            data_hash: b64(),
            last_transaction_lt: String(lt),
          })),
          address_book: {},
          metadata: {},
        },
      ];
    }
    if (path === '/api/v3/jetton/transfers') {
      const owners = q.getAll('owner_address').map(raw);
      const master = q.get('jetton_master');
      let rows = jettons;
      if (owners.length > 0) rows = rows.filter((j) => owners.includes(j.owner));
      if (master) rows = rows.filter((j) => j.master === raw(master));
      const sorted = byLt(rows, (j) => BigInt(j.body.transaction_lt as string), q);
      return [200, { jetton_transfers: page(sorted, q).map((j) => j.body), address_book: {}, metadata: {} }];
    }
    return [404, { error: 'not found', code: 404 }];
  }

  /** True when `key` is over its budget now (counted in a sliding second). */
  const overBudget = (key: string): boolean => {
    if (!opts.rps) return false;
    const now = Date.now();
    const times = (seenAt.get(key) ?? []).filter((t) => now - t < 1000);
    const allowed = key ? opts.rps.withKey : opts.rps.withoutKey;
    const over = times.length >= allowed;
    if (!over) times.push(now);
    seenAt.set(key, times);
    return over;
  };

  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const failure = failures.shift();
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const key = String(req.headers['x-api-key'] ?? url.searchParams.get('api_key') ?? '');
    if (failure === 429 || overBudget(key)) {
      rateLimited += 1;
      return send(429, { ok: false, result: 'Ratelimit exceed', code: 429 });
    }
    if (failure === 500) return send(500, { error: 'internal error', code: 500 });
    if (failure === 'malformed') return res.writeHead(200).end('<html>gateway</html>');
    try {
      const [status, body] = answer(url.pathname, url.searchParams);
      send(status, body);
    } catch (err) {
      // Addresses the indexer cannot parse: ton-index-go answers 422 with the parser's message.
      send(422, { error: (err as Error).message, code: 422 });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/api/v3`,
    requests,
    /** How many requests were answered 429 (over the budget, or `failNext`). */
    get rateLimited() {
      return rateLimited;
    },
    /** A jetton master the indexer knows, with its content (TEP-64: `decimals` as a string). */
    addMaster(address: string, content: Record<string, unknown> = { decimals: '6', symbol: 'USD₮' }) {
      masters.set(raw(address), content);
    },
    /** The current masterchain seqno. */
    head: () => blocks.length,
    /** Empty masterchain blocks. */
    mineEmpty(n: number) {
      for (let i = 0; i < n; i++) mine();
    },
    payTon,
    /**
     * A USDT jetton transfer of `units` (10^-6) to the owner `to`, processed in a new block by the
     * sender's jetton wallet. Also the transfer_notification that carries 1 nanoton to `to` (as
     * jetton wallets send with forward_ton_amount), with opcode 0x7362d09c.
     */
    payJetton(to: string, units: bigint, opts: { master: string; aborted?: boolean }) {
      const sourceWallet = tonAddress();
      const tx = addTx(
        sourceWallet,
        message(tonAddress(), sourceWallet, 50_000_000n, { opcode: '0x0f8a7ea5' }),
        {
          aborted: opts.aborted ?? false,
        },
      );
      jettons.push({
        owner: raw(to),
        master: raw(opts.master),
        body: {
          query_id: '0',
          source: raw(tonAddress()),
          destination: raw(to),
          amount: String(units),
          source_wallet: tx.account,
          jetton_master: raw(opts.master),
          transaction_hash: tx.hash,
          transaction_lt: tx.lt,
          transaction_now: tx.now,
          transaction_aborted: opts.aborted ?? false,
          response_destination: null,
          custom_payload: null,
          forward_ton_amount: '1',
          forward_payload: null,
          trace_id: tx.trace_id,
        },
      });
      if (!opts.aborted) payTon(to, 1n, { opcode: '0x7362d09c', from: tonAddress() });
      return tx;
    },
    failNext(n: number, failure: TonFailure) {
      for (let i = 0; i < n; i++) failures.push(failure);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
