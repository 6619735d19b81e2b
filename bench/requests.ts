/**
 * What the bench's clients send, the same for the service and for its bare baseline: a
 * new JSON body, a fresh signature and the same headers per request, so that the load generator
 * (on the same two cores) spends as much on either side and the ratio compares the servers only.
 */
import { createHash } from 'node:crypto';
import type autocannon from 'autocannon';

/** A merchant of the bench: its id and API key. */
export interface BenchMerchant {
  id: string;
  key: string;
}

/** An order to read back: its internal id and the merchant's order_id. */
export interface ReadTarget {
  id: string;
  externalId: string;
}

/** The request signature of the contract: hex SHA-256 of `key|body` (body empty for a GET). */
export function sign(key: string, body = ''): string {
  return createHash('sha256').update(`${key}|${body}`).digest('hex');
}

/** One counter for the whole run: every createOrder (and baseline insert) has a new order_id. */
let orderSeq = 0;

/**
 * POSTs of new fiat PAYIN orders to `path`: `/merchant/createOrder` on the service, `/insert` on
 * the baseline, which parses the same body and checks nothing.
 */
export function createOrderLoad(merchant: BenchMerchant, path: string): Partial<autocannon.Options> {
  return {
    method: 'POST',
    requests: [
      {
        setupRequest: (req) => {
          const n = orderSeq++;
          const body = JSON.stringify({
            merchant_id: merchant.id,
            amount: 1000 + (n % 5000),
            type: 'sim',
            order_id: `b-${process.pid}-${n}`,
            client_id: `payer-${n % 997}`,
          });
          return {
            ...req,
            method: 'POST',
            path,
            body,
            headers: {
              'content-type': 'application/json',
              'client-api-key': merchant.key,
              'x-api-key': sign(merchant.key, body),
            },
          };
        },
      },
    ],
  };
}

/**
 * GETs of many distinct orders, alternately by internal id and by the merchant's order_id, each
 * signed afresh: `/merchant/order/` on the service, `/select/` on the baseline.
 */
export function readOrderLoad(
  merchant: BenchMerchant,
  pathPrefix: string,
  targets: ReadTarget[],
): Partial<autocannon.Options> {
  if (targets.length === 0) throw new Error('no orders to read');
  let n = 0;
  return {
    method: 'GET',
    requests: [
      {
        setupRequest: (req) => {
          const target = targets[n % targets.length] as ReadTarget;
          const id = n % 2 === 0 ? target.id : target.externalId;
          n++;
          return {
            ...req,
            method: 'GET',
            path: `${pathPrefix}${encodeURIComponent(id)}`,
            headers: { 'client-api-key': merchant.key, 'x-api-key': sign(merchant.key, '') },
          };
        },
      },
    ],
  };
}

/** Fisher-Yates with a fixed seed, so that reads are spread over the table, not in insert order. */
export function shuffled<T>(items: T[], seed = 42): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
