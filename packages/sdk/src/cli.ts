#!/usr/bin/env node
import { realpathSync } from 'node:fs';
/**
 * `payment-orders`: a small CLI over the merchant SDK. Reads PAYMENT_ORDERS_URL, MERCHANT_ID and
 * API_KEY from the environment and prints the answer as JSON on stdout. A failed call prints
 * `{"error": CODE, "status": HTTP, "details": [...]}` on stderr and exits 1; a usage error exits 2.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startListener } from './cli-listen.js';
import {
  CRYPTO_TYPES,
  type CreateOrderRequest,
  type CryptoType,
  createMerchantClient,
  type EventType,
  type FetchLike,
  MerchantApiError,
  SANDBOX_OUTCOMES,
  type SandboxOutcome,
} from './index.js';

export const USAGE = `Usage: payment-orders <command> [options]

Environment: PAYMENT_ORDERS_URL (e.g. https://pay.example.com), MERCHANT_ID, API_KEY

Commands:
  create-order --amount N --type TYPE [--order-id ID] [--currency CUR] [--callback-url URL]
               [--amount-up N] [--amount-down N] [--client-id ID] [--comment TEXT]
               [--direction PAYOUT --holder-account DIGITS --holder-name NAME --method-name BANK]
  order <id>                      an order by your order_id or by its internal id (lux...)
  balance                         your balance
  upload-receipt --order-id ID (--file PATH | --url URL)
  simulate <order-id> <outcome> [--amount N]
                                  sandbox (a test key): paid, paid_other_amount, expired, cancelled,
                                  receipt_accepted, receipt_rejected, payout_sent, payout_failed
  subscribe --url URL --events order.expired,payout.sent,...
  subscriptions                   your event subscriptions
  test-event <subscription-id> [--type EVENT]
  deliveries [--limit N]          the event delivery log, newest first
  reports                         today's and the last 30 days' figures
  listen [--port 4242] [--host 127.0.0.1]
                                  prints every event and webhook arriving there, one JSON line each,
                                  verified with API_KEY (and TEST_API_KEY when set); Ctrl-C stops
`;

class UsageError extends Error {}

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  fetch?: FetchLike;
  sleep?: (ms: number) => Promise<void>;
  /** Stops `listen` (tests); otherwise SIGINT does. */
  signal?: AbortSignal;
}

function requireEnv(env: Record<string, string | undefined>, name: string): string {
  const value = env[name];
  if (!value) throw new UsageError(`${name} is not set`);
  return value;
}

function numberOption(value: string | undefined, name: string, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'}`);
  }
  return n;
}

/** The declared type of a receipt file, from its first bytes (the service checks the content too). */
export function sniffContentType(data: Uint8Array): string {
  const starts = (...bytes: number[]) => bytes.every((b, i) => data[i] === b);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  return 'application/octet-stream';
}

const CREATE_OPTIONS = {
  amount: { type: 'string' },
  type: { type: 'string' },
  'order-id': { type: 'string' },
  currency: { type: 'string' },
  direction: { type: 'string' },
  'holder-account': { type: 'string' },
  'holder-name': { type: 'string' },
  'method-name': { type: 'string' },
  'callback-url': { type: 'string' },
  'amount-up': { type: 'string' },
  'amount-down': { type: 'string' },
  'client-id': { type: 'string' },
  comment: { type: 'string' },
} as const;

/** The createOrder request of `create-order` options. */
export function createOrderRequest(args: string[]): CreateOrderRequest {
  const { values: v } = parseArgs({ args, options: CREATE_OPTIONS, strict: true, allowPositionals: false });
  const amount = numberOption(v.amount, 'amount');
  if (amount === undefined) throw new UsageError('--amount is required');
  if (!v.type) throw new UsageError('--type is required');
  const direction = v.direction?.toUpperCase();
  if (direction !== undefined && direction !== 'PAYIN' && direction !== 'PAYOUT') {
    throw new UsageError('--direction must be PAYIN or PAYOUT');
  }
  const common = {
    ...(v['order-id'] === undefined ? {} : { order_id: v['order-id'] }),
    ...(v['callback-url'] === undefined ? {} : { success_callback_url: v['callback-url'] }),
    ...(v['client-id'] === undefined ? {} : { client_id: v['client-id'] }),
  };
  if (direction === 'PAYOUT') {
    const account = v['holder-account'];
    const name = v['holder-name'];
    const bank = v['method-name'];
    if (!account || !name || !bank) {
      throw new UsageError('a PAYOUT needs --holder-account, --holder-name and --method-name');
    }
    if (v.type !== 'card' && v.type !== 'sim') throw new UsageError('a PAYOUT --type is card or sim');
    return {
      amount,
      type: v.type,
      direction: 'PAYOUT',
      ...common,
      payout_details: { holderAccount: account, holderName: name, methodName: bank },
    };
  }
  if ((CRYPTO_TYPES as readonly string[]).includes(v.type)) {
    return {
      amount,
      type: v.type as CryptoType,
      ...common,
      ...(v.currency === undefined ? {} : { currency: v.currency as 'RUB' }),
    };
  }
  const amountUp = numberOption(v['amount-up'], 'amount-up', true);
  const amountDown = numberOption(v['amount-down'], 'amount-down', true);
  return {
    amount,
    type: v.type,
    ...common,
    ...(v.currency === undefined ? {} : { currency: v.currency }),
    ...(amountUp === undefined ? {} : { amountUp }),
    ...(amountDown === undefined ? {} : { amountDown }),
    ...(v.comment === undefined ? {} : { comment: v.comment }),
  };
}

const isOutcome = (value: unknown): value is SandboxOutcome =>
  typeof value === 'string' && (SANDBOX_OUTCOMES as readonly string[]).includes(value);

/** `listen`: runs until the process is stopped (or `io.signal` aborts, in tests); exit code 0. */
async function listen(args: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  try {
    const { values } = parseArgs({
      args,
      options: { port: { type: 'string' }, host: { type: 'string' } },
      strict: true,
    });
    const keys = [requireEnv(env, 'API_KEY'), ...(env.TEST_API_KEY ? [env.TEST_API_KEY] : [])];
    const listener = await startListener({
      port: numberOption(values.port, 'port', true) ?? 4242,
      ...(values.host ? { host: values.host } : {}),
      keys,
      onArrival: (arrival) => io.stdout(`${JSON.stringify(arrival)}\n`),
    });
    io.stderr(`payment-orders: listening on ${listener.url}\n`);
    await new Promise<void>((resolve) => {
      if (io.signal) io.signal.addEventListener('abort', () => resolve(), { once: true });
      process.once('SIGINT', () => resolve());
    });
    await listener.close();
    return 0;
  } catch (err) {
    io.stderr(`payment-orders: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
}

/** Runs one CLI command; returns the exit code (0 ok, 1 the call failed, 2 usage). */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    (command === undefined ? io.stderr : io.stdout)(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === 'listen') return listen(rest, env, io);
  try {
    const client = createMerchantClient({
      baseUrl: requireEnv(env, 'PAYMENT_ORDERS_URL'),
      merchantId: requireEnv(env, 'MERCHANT_ID'),
      apiKey: requireEnv(env, 'API_KEY'),
      ...(io.fetch ? { fetch: io.fetch } : {}),
      ...(io.sleep ? { sleep: io.sleep } : {}),
    });
    let result: unknown;
    switch (command) {
      case 'create-order':
        result = await client.createOrder(createOrderRequest(rest));
        break;
      case 'order': {
        const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true, strict: true });
        if (positionals.length !== 1 || !positionals[0]) throw new UsageError('order takes one <id>');
        result = await client.getOrder(positionals[0]);
        break;
      }
      case 'balance':
        parseArgs({ args: rest, options: {}, allowPositionals: false, strict: true });
        result = await client.getBalance();
        break;
      case 'upload-receipt': {
        const { values } = parseArgs({
          args: rest,
          options: { 'order-id': { type: 'string' }, file: { type: 'string' }, url: { type: 'string' } },
          strict: true,
          allowPositionals: false,
        });
        const orderId = values['order-id'];
        if (!orderId) throw new UsageError('--order-id is required');
        if ((values.file === undefined) === (values.url === undefined)) {
          throw new UsageError('give exactly one of --file PATH or --url URL');
        }
        if (values.file !== undefined) {
          const data = new Uint8Array(await readFile(values.file));
          result = await client.uploadReceiptFile(
            orderId,
            data,
            basename(values.file),
            sniffContentType(data),
          );
        } else {
          result = await client.uploadReceiptUrl(orderId, values.url as string);
        }
        break;
      }
      case 'simulate': {
        const { positionals, values } = parseArgs({
          args: rest,
          options: { amount: { type: 'string' } },
          allowPositionals: true,
          strict: true,
        });
        const [orderId, outcome] = positionals;
        if (positionals.length !== 2 || !orderId || !isOutcome(outcome))
          throw new UsageError(`simulate takes <order-id> and one of ${SANDBOX_OUTCOMES.join(', ')}`);
        result = await client.simulate(orderId, outcome, values.amount);
        break;
      }
      case 'subscribe': {
        const { values } = parseArgs({
          args: rest,
          options: { url: { type: 'string' }, events: { type: 'string' } },
          strict: true,
        });
        if (!values.url || !values.events) throw new UsageError('subscribe needs --url and --events');
        result = await client.subscriptions.create(values.url, values.events.split(',') as EventType[]);
        break;
      }
      case 'subscriptions':
        result = await client.subscriptions.list();
        break;
      case 'test-event': {
        const { positionals, values } = parseArgs({
          args: rest,
          options: { type: { type: 'string' } },
          allowPositionals: true,
          strict: true,
        });
        if (positionals.length !== 1 || !positionals[0])
          throw new UsageError('test-event takes <subscription-id>');
        result = await client.subscriptions.sendTest(positionals[0], values.type as EventType | undefined);
        break;
      }
      case 'deliveries': {
        const { values } = parseArgs({ args: rest, options: { limit: { type: 'string' } }, strict: true });
        const limit = numberOption(values.limit, 'limit', true);
        result = await client.subscriptions.deliveries(limit === undefined ? {} : { limit });
        break;
      }
      case 'reports':
        result = await client.reports();
        break;
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof MerchantApiError) {
      const out = { error: err.code, status: err.status, details: err.details };
      io.stderr(`${JSON.stringify(out, null, 2)}\n`);
      return 1;
    }
    const usage =
      err instanceof UsageError ||
      (err as { code?: string } | null)?.code?.startsWith('ERR_PARSE_ARGS') === true;
    if (usage) {
      io.stderr(`payment-orders: ${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    io.stderr(`payment-orders: ${(err as Error)?.message ?? String(err)}\n`);
    return 1;
  }
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  process.exitCode = await runCli(process.argv.slice(2), process.env);
}
