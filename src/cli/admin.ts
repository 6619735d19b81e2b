import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseEnv } from '../config.js';

/**
 * `npm run admin -- <command>`: the admin API from a terminal, for a first start without curl.
 * It talks to the running service (ADMIN_URL, default http://HOST:PORT) with ADMIN_TOKEN, or the token
 * the embedded default generated in DATA_DIR/secrets.json.
 */
const USAGE = `Usage: npm run -s admin -- <command> [options]
(-s keeps npm's own lines off stdout: the answer is JSON alone, e.g. for | jq -r .api_key)

Admin token
  token                                     (prints the admin token alone: ADMIN_TOKEN or DATA_DIR/secrets.json)
Merchants
  merchant create <merchant_id> [--fee 2.5] [--payout-fee 1] [--currencies RUB,KZT] [--types sim,card]
                  [--allow-usdt] [--amount-up 30] [--amount-down 30] [--ttl 900]
  merchant list | merchant show <id> | merchant enable <id> | merchant disable <id>
  merchant rotate-key <id> [--grace 3600]   (the old key keeps working for --grace seconds, default 0)
  merchant test-key <id>                    (issues the sandbox key: its orders are test orders)
  merchant adjust <id> --currency RUB --amount 1000 --reason "opening balance"
Requisites
  requisite add --kind card|phone|qr|account --bank Sberbank --address 79001234567 --holder "Ivan I."
                [--currency RUB] [--min 100] [--max 50000] [--daily-limit 500000] [--max-active 10] [--emv ...]
  requisite list | requisite enable <id> | requisite disable <id>
Rates
  rate set <BASE> <QUOTE> <rate> [--ttl <seconds>] [--reason "..."]   e.g. rate set USDT RUB 92.5 --ttl 3600
                  (more than RATE_OPERATOR_MAX_DEVIATION % from the sources' median needs --reason)
  rate list
Chain watchers (chains: ethereum bsc tron ton bitcoin litecoin)
  chain list
  chain set <chain> [--url https://...] [--api-key ...] [--confirmations 12] [--token-contract 0x...]
                    [--poll-seconds 12] [--start-height N] [--chain-id 31337] [--genesis-hash <hex>]
                    [--rps 10] [--enabled true|false]
Operators (back office accounts)
  operator create <username> --role admin|support|payouts|viewer [--password "..."]
                  (without --password one is generated and shown once)
  operator list | operator token <username> --name ci-bot
  operator tokens <username> | operator revoke-token <username> <token-id>
  operator allow-ips <username> <ip-or-cidr,...>   ("" allows any address)
  operator reset-2fa <username>                     (a lost phone: enrol again at next sign-in)
Orders
  orders [--merchant id] [--status pending|success|error]
  order show <id> | order confirm <id> [--reason "..."] | order cancel <id> --reason "..."
                  <id>: our internal id (lux...) or the merchant's order_id; add --merchant <id>
                  when that order_id is used by several merchants

Environment: ADMIN_URL (default http://$HOST:$PORT or http://127.0.0.1:3000), ADMIN_TOKEN
(default: read from $DATA_DIR/secrets.json, DATA_DIR defaulting to ./data).`;

/**
 * The admin token: ADMIN_TOKEN, else the one the embedded default generated in DATA_DIR/secrets.json.
 * Throws a message that says which is missing and how to fix it (README "The admin API and CLI").
 */
function adminToken(): string {
  const env = cliEnv();
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const dir = resolve(env.DATA_DIR);
  const file = join(dir, 'secrets.json');
  if (!existsSync(file)) {
    throw new Error(
      `No admin token: ADMIN_TOKEN is not set and ${file} does not exist.\n` +
        '  - On the embedded database, start the service once (npm start) from this directory, or set\n' +
        `    DATA_DIR to the directory the service uses (now ${dir}).\n` +
        '  - With DATABASE_URL, set ADMIN_TOKEN to the token the service was started with.',
    );
  }
  try {
    const token = (JSON.parse(readFileSync(file, 'utf8')) as { adminToken?: unknown }).adminToken;
    if (typeof token === 'string' && token) return token;
  } catch (err) {
    throw new Error(`Cannot read the admin token from ${file}: ${(err as Error).message}`);
  }
  throw new Error(`${file} holds no adminToken: set ADMIN_TOKEN.`);
}

/** The CLI reads the service's own configuration schema (src/config-schema.ts), parsed once. */
let parsedEnv: ReturnType<typeof parseEnv> | undefined;
function cliEnv(): ReturnType<typeof parseEnv> {
  parsedEnv ??= parseEnv(process.env);
  return parsedEnv;
}

function baseUrl(): string {
  const env = cliEnv();
  if (env.ADMIN_URL) return env.ADMIN_URL.replace(/\/+$/, '');
  const host = env.HOST !== '0.0.0.0' ? env.HOST : '127.0.0.1';
  return `http://${host}:${env.PORT}`;
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const url = `${baseUrl()}${path}`;
  // Read before connecting: a missing token is its own problem, not an unreachable service.
  const token = adminToken();
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new Error(
      `Cannot reach the service at ${baseUrl()}: is it running (npm start)? Set ADMIN_URL otherwise.`,
    );
  }
  const json = (await res.json()) as {
    success: boolean;
    data?: unknown;
    message?: string;
    details?: unknown;
  };
  if (!json.success) {
    throw new Error(
      `${method} ${path} failed: ${res.status} ${json.message}${json.details ? ` ${JSON.stringify(json.details)}` : ''}`,
    );
  }
  return json.data;
}

const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
const int = (v: string | undefined) => (v === undefined ? undefined : Number.parseInt(v, 10));

function need(value: string | undefined, what: string): string {
  if (!value) throw new Error(`Missing ${what}.\n\n${USAGE}`);
  return value;
}

const INTERNAL_ID = /^lux[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The path segment of an order named by its internal id, or by a merchant's order_id where that is
 * unambiguous: one order with it (of `--merchant` when given). Throws a message otherwise.
 */
async function orderPath(id: string, merchant: string | undefined): Promise<string> {
  if (INTERNAL_ID.test(id) && !merchant) return encodeURIComponent(id);
  const q = new URLSearchParams({ order_id: id, size: '2' });
  if (merchant) q.set('merchant_id', merchant);
  const found = (await call('GET', `/admin/orders?${q}`)) as { total: number; orders: Array<{ id: string }> };
  const only = found.orders[0];
  if (found.total === 1 && only) return encodeURIComponent(only.id);
  if (found.total === 0) {
    if (INTERNAL_ID.test(id)) return encodeURIComponent(id);
    throw new Error(`No order with order_id "${id}"${merchant ? ` for merchant ${merchant}` : ''}.`);
  }
  throw new Error(
    `${found.total} orders have order_id "${id}" (one per merchant): add --merchant <merchant_id>.`,
  );
}

/** Runs one CLI command; returns what to print. */
export async function run(argv: string[]): Promise<unknown> {
  const { values: o, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      fee: { type: 'string' },
      'payout-fee': { type: 'string' },
      grace: { type: 'string' },
      currencies: { type: 'string' },
      types: { type: 'string' },
      'allow-usdt': { type: 'boolean' },
      'amount-up': { type: 'string' },
      'amount-down': { type: 'string' },
      ttl: { type: 'string' },
      currency: { type: 'string' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      kind: { type: 'string' },
      bank: { type: 'string' },
      address: { type: 'string' },
      holder: { type: 'string' },
      min: { type: 'string' },
      max: { type: 'string' },
      'daily-limit': { type: 'string' },
      'max-active': { type: 'string' },
      emv: { type: 'string' },
      merchant: { type: 'string' },
      status: { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      confirmations: { type: 'string' },
      'token-contract': { type: 'string' },
      'poll-seconds': { type: 'string' },
      'start-height': { type: 'string' },
      'chain-id': { type: 'string' },
      'genesis-hash': { type: 'string' },
      rps: { type: 'string' },
      enabled: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, action, ...rest] = positionals;
  if (o.help || !group) return USAGE;
  if (group === 'token' && !action) return adminToken();
  const id = rest[0] ?? '';
  const key = `${group} ${action ?? ''}`.trim();
  switch (key) {
    case 'merchant create':
      return call('POST', '/admin/merchants', {
        merchant_id: need(id, 'merchant_id'),
        ...(o.fee !== undefined ? { payin_fee_percent: o.fee } : {}),
        ...(o['payout-fee'] !== undefined ? { payout_fee_percent: o['payout-fee'] } : {}),
        ...(o.currencies ? { currencies: list(o.currencies) } : {}),
        ...(o.types ? { payment_types: list(o.types) } : {}),
        ...(o['allow-usdt'] ? { allow_usdt: true } : {}),
        ...(o['amount-up'] !== undefined ? { default_amount_up: int(o['amount-up']) } : {}),
        ...(o['amount-down'] !== undefined ? { default_amount_down: int(o['amount-down']) } : {}),
        ...(o.ttl !== undefined ? { order_ttl_seconds: int(o.ttl) } : {}),
      });
    case 'merchant list':
      return call('GET', '/admin/merchants');
    case 'merchant show':
      return call('GET', `/admin/merchants/${encodeURIComponent(need(id, 'merchant_id'))}`);
    case 'merchant enable':
    case 'merchant disable':
      return call('PATCH', `/admin/merchants/${encodeURIComponent(need(id, 'merchant_id'))}`, {
        enabled: action === 'enable',
      });
    case 'merchant rotate-key':
      return call('POST', `/admin/merchants/${encodeURIComponent(need(id, 'merchant_id'))}/api-keys`, {
        grace_seconds: o.grace === undefined ? 0 : Number(o.grace),
      });
    case 'merchant test-key':
      return call('POST', `/admin/merchants/${encodeURIComponent(need(id, 'merchant_id'))}/api-keys`, {
        mode: 'test',
      });
    case 'merchant adjust':
      return call(
        'POST',
        `/admin/merchants/${encodeURIComponent(need(id, 'merchant_id'))}/ledger-adjustments`,
        {
          currency: o.currency ?? 'RUB',
          amount: need(o.amount, '--amount'),
          reason: need(o.reason, '--reason'),
        },
      );
    case 'requisite add':
      return call('POST', '/admin/requisites', {
        kind: need(o.kind, '--kind'),
        bank: need(o.bank, '--bank'),
        address: need(o.address, '--address'),
        holder_name: need(o.holder, '--holder'),
        currency: o.currency ?? 'RUB',
        ...(o.min !== undefined ? { min_amount: o.min } : {}),
        ...(o.max !== undefined ? { max_amount: o.max } : {}),
        ...(o['daily-limit'] !== undefined ? { daily_limit: o['daily-limit'] } : {}),
        ...(o['max-active'] !== undefined ? { max_active_orders: int(o['max-active']) } : {}),
        ...(o.emv !== undefined ? { emv: o.emv } : {}),
      });
    case 'requisite list':
      return call('GET', '/admin/requisites');
    case 'requisite enable':
    case 'requisite disable':
      return call('PATCH', `/admin/requisites/${encodeURIComponent(need(id, 'requisite id'))}`, {
        enabled: action === 'enable',
      });
    case 'rate set':
      return call('PUT', '/admin/rates', {
        base: need(rest[0], 'BASE'),
        quote: need(rest[1], 'QUOTE'),
        rate: need(rest[2], 'rate'),
        ...(o.ttl !== undefined ? { ttl_seconds: Number(o.ttl) } : {}),
        ...(o.reason !== undefined ? { reason: o.reason } : {}),
      });
    case 'rate list':
      return call('GET', '/admin/rates');
    case 'chain list':
      return call('GET', '/admin/chains');
    case 'chain set': {
      const int = (v: string | undefined) => (v === undefined ? undefined : Number(v));
      const body = {
        url: o.url,
        api_key: o['api-key'],
        confirmations: int(o.confirmations),
        token_contract: o['token-contract'],
        poll_seconds: int(o['poll-seconds']),
        start_height: int(o['start-height']),
        chain_id: int(o['chain-id']),
        genesis_hash: o['genesis-hash'],
        rps: int(o.rps),
        enabled: o.enabled === undefined ? undefined : o.enabled === 'true',
      };
      return call(
        'PUT',
        `/admin/chains/${encodeURIComponent(need(rest[0], 'chain'))}`,
        Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
      );
    }
    case 'operator create':
      return call('POST', '/admin/operators', {
        username: need(id, 'username'),
        role: need(o.role, '--role'),
        ...(o.password ? { password: o.password } : {}),
      });
    case 'operator list':
      return call('GET', '/admin/operators');
    case 'operator token':
      return call('POST', `/admin/operators/${encodeURIComponent(need(id, 'username'))}/tokens`, {
        name: need(o.name, '--name'),
      });
    case 'operator tokens':
      return call('GET', `/admin/operators/${encodeURIComponent(need(id, 'username'))}/tokens`);
    case 'operator revoke-token':
      return call(
        'POST',
        `/admin/operators/${encodeURIComponent(need(id, 'username'))}/tokens/${encodeURIComponent(need(rest[1], 'token id'))}/revoke`,
      );
    case 'operator allow-ips':
      return call('PATCH', `/admin/operators/${encodeURIComponent(need(id, 'username'))}`, {
        ip_allowlist: (rest[1] ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      });
    case 'operator reset-2fa':
      return call('POST', `/admin/operators/${encodeURIComponent(need(id, 'username'))}/two-factor/reset`);
    case 'order show':
      return call('GET', `/admin/orders/${await orderPath(need(id, 'order id'), o.merchant)}`);
    case 'order confirm':
      return call(
        'POST',
        `/admin/orders/${await orderPath(need(id, 'order id'), o.merchant)}/confirm`,
        o.reason ? { reason: o.reason } : {},
      );
    case 'order cancel':
      return call('POST', `/admin/orders/${await orderPath(need(id, 'order id'), o.merchant)}/cancel`, {
        reason: need(o.reason, '--reason'),
      });
  }
  if (group === 'orders') {
    const q = new URLSearchParams();
    if (o.merchant) q.set('merchant_id', o.merchant);
    if (o.status) q.set('status', o.status);
    return call('GET', `/admin/orders?${q}`);
  }
  throw new Error(`Unknown command "${key}".\n\n${USAGE}`);
}

/** Fields a person must copy from an answer (shown once): printed first, so they are never lost. */
const SECRET_FIELDS = ['api_key', 'password', 'token', 'recovery_codes', 'invite_url'];

/** The answer with its secret fields first (README "The admin API and CLI"); other values as they are. */
function secretsFirst(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const first = entries.filter(([k]) => SECRET_FIELDS.includes(k));
  return Object.fromEntries([...first, ...entries.filter(([k]) => !SECRET_FIELDS.includes(k))]);
}

// Only the answer goes to stdout (JSON, or the usage and token as text); every message to stderr.
run(process.argv.slice(2)).then(
  (out) => {
    process.stdout.write(`${typeof out === 'string' ? out : JSON.stringify(secretsFirst(out), null, 2)}\n`);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
