import { parseArgs } from 'node:util';

/** The CLI's help: every command, one group of the admin API each (admin.ts runs them). */
export const USAGE = `Usage: npm run -s admin -- <command> [options]
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

/** The options every command may take (`parseArgs`). */
const OPTIONS = {
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
} as const;

/** The command line read: options and positionals (`parseArgs`). */
export function parseCommandLine(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
}

type Options = ReturnType<typeof parseCommandLine>['values'];

/** A request to the admin API; answers the `data` of the envelope, throws a message otherwise. */
export type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** One command: the API to call, its action (`create` in `merchant create`), its arguments and options. */
export interface Command {
  call: Call;
  action: string | undefined;
  /** The positionals after the action. */
  rest: string[];
  o: Options;
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
async function orderPath(call: Call, id: string, merchant: string | undefined): Promise<string> {
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

/** `merchant create|list|show|enable|disable|rotate-key|test-key|adjust`. */
function merchantCommand({ call, action, rest, o }: Command): Promise<unknown> | undefined {
  const id = rest[0] ?? '';
  const path = () => `/admin/merchants/${encodeURIComponent(need(id, 'merchant_id'))}`;
  switch (action) {
    case 'create':
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
    case 'list':
      return call('GET', '/admin/merchants');
    case 'show':
      return call('GET', path());
    case 'enable':
    case 'disable':
      return call('PATCH', path(), { enabled: action === 'enable' });
    case 'rotate-key':
      return call('POST', `${path()}/api-keys`, {
        grace_seconds: o.grace === undefined ? 0 : Number(o.grace),
      });
    case 'test-key':
      return call('POST', `${path()}/api-keys`, { mode: 'test' });
    case 'adjust':
      return call('POST', `${path()}/ledger-adjustments`, {
        currency: o.currency ?? 'RUB',
        amount: need(o.amount, '--amount'),
        reason: need(o.reason, '--reason'),
      });
  }
  return undefined;
}

/** `requisite add|list|enable|disable`. */
function requisiteCommand({ call, action, rest, o }: Command): Promise<unknown> | undefined {
  switch (action) {
    case 'add':
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
    case 'list':
      return call('GET', '/admin/requisites');
    case 'enable':
    case 'disable':
      return call('PATCH', `/admin/requisites/${encodeURIComponent(need(rest[0], 'requisite id'))}`, {
        enabled: action === 'enable',
      });
  }
  return undefined;
}

/** `rate set|list`. */
function rateCommand({ call, action, rest, o }: Command): Promise<unknown> | undefined {
  switch (action) {
    case 'set':
      return call('PUT', '/admin/rates', {
        base: need(rest[0], 'BASE'),
        quote: need(rest[1], 'QUOTE'),
        rate: need(rest[2], 'rate'),
        ...(o.ttl !== undefined ? { ttl_seconds: Number(o.ttl) } : {}),
        ...(o.reason !== undefined ? { reason: o.reason } : {}),
      });
    case 'list':
      return call('GET', '/admin/rates');
  }
  return undefined;
}

/** `chain list|set`: options not given are left out of the body (the chain keeps its values). */
function chainCommand({ call, action, rest, o }: Command): Promise<unknown> | undefined {
  if (action === 'list') return call('GET', '/admin/chains');
  if (action !== 'set') return undefined;
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const body = {
    url: o.url,
    api_key: o['api-key'],
    confirmations: num(o.confirmations),
    token_contract: o['token-contract'],
    poll_seconds: num(o['poll-seconds']),
    start_height: num(o['start-height']),
    chain_id: num(o['chain-id']),
    genesis_hash: o['genesis-hash'],
    rps: num(o.rps),
    enabled: o.enabled === undefined ? undefined : o.enabled === 'true',
  };
  return call(
    'PUT',
    `/admin/chains/${encodeURIComponent(need(rest[0], 'chain'))}`,
    Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
  );
}

/** `operator create|list|token|tokens|revoke-token|allow-ips|reset-2fa`. */
function operatorCommand({ call, action, rest, o }: Command): Promise<unknown> | undefined {
  const path = () => `/admin/operators/${encodeURIComponent(need(rest[0], 'username'))}`;
  switch (action) {
    case 'create':
      return call('POST', '/admin/operators', {
        username: need(rest[0], 'username'),
        role: need(o.role, '--role'),
        ...(o.password ? { password: o.password } : {}),
      });
    case 'list':
      return call('GET', '/admin/operators');
    case 'token':
      return call('POST', `${path()}/tokens`, { name: need(o.name, '--name') });
    case 'tokens':
      return call('GET', `${path()}/tokens`);
    case 'revoke-token':
      return call('POST', `${path()}/tokens/${encodeURIComponent(need(rest[1], 'token id'))}/revoke`);
    case 'allow-ips':
      return call('PATCH', path(), {
        ip_allowlist: (rest[1] ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      });
    case 'reset-2fa':
      return call('POST', `${path()}/two-factor/reset`);
  }
  return undefined;
}

/** `order show|confirm|cancel <id>` (an internal id or a merchant's order_id). */
function orderCommand({ call, action, rest, o }: Command): Promise<unknown> | undefined {
  const path = async (suffix: string) =>
    `/admin/orders/${await orderPath(call, need(rest[0], 'order id'), o.merchant)}${suffix}`;
  switch (action) {
    case 'show':
      return path('').then((p) => call('GET', p));
    case 'confirm':
      return path('/confirm').then((p) => call('POST', p, o.reason ? { reason: o.reason } : {}));
    case 'cancel':
      return path('/cancel').then((p) => call('POST', p, { reason: need(o.reason, '--reason') }));
  }
  return undefined;
}

/** `orders [--merchant id] [--status s]`: whatever follows `orders`. */
function ordersCommand({ call, o }: Command): Promise<unknown> {
  const q = new URLSearchParams();
  if (o.merchant) q.set('merchant_id', o.merchant);
  if (o.status) q.set('status', o.status);
  return call('GET', `/admin/orders?${q}`);
}

/** Each command group's handler: undefined for an action it does not know. */
export const COMMANDS: Readonly<Record<string, (c: Command) => Promise<unknown> | undefined>> = {
  merchant: merchantCommand,
  requisite: requisiteCommand,
  rate: rateCommand,
  chain: chainCommand,
  operator: operatorCommand,
  order: orderCommand,
  orders: ordersCommand,
};
