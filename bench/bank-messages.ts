/**
 * Bank message -> order success (docs/bank-messages.md "The simulated day"): one phone of a VTB
 * card reports, through SMS Gateway for Android's signed webhook, the bank's SMS of each order's
 * payment, one after another as a phone does; the time from the report's request to its answer is
 * the time to the order's success (the order moves inside that request). The text is a held-out VTB
 * format (test/fixtures/bank-messages/held-out), the amounts are the orders'. Prints nothing itself;
 * `npm run bench` puts p50 and p95 in its table.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { moscowTime, smsReceivedBody } from '../test/helpers/phones.js';
import { type BenchMerchant, sign } from './requests.js';

/** The measurement: SMS reported, confirmed, and the latency percentiles in ms. */
export interface BankMessageResult {
  reported: number;
  confirmed: number;
  p50: number;
  p95: number;
}

async function call(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const json = (await res.json()) as { data?: Record<string, unknown> } & Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  // The admin and device routes answer `{success, data}`; createOrder answers the order itself.
  return json.data ?? json;
}

/** Runs `n` orders through one phone at `base` (the service, admin token `adminToken`). */
export async function benchBankMessages(
  base: string,
  adminToken: string,
  merchant: BenchMerchant,
  n = 300,
): Promise<BankMessageResult> {
  const adminInit = (body: unknown): RequestInit => ({
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const mask = String(1000 + Math.floor(Math.random() * 9000));
  const requisite = await call(
    `${base}/admin/requisites`,
    adminInit({
      kind: 'card',
      bank: 'vtb',
      address: `2200${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}${mask}`,
      holder_name: 'Bench',
      currency: 'RUB',
      max_active_orders: 100_000,
    }),
  );
  const device = (await call(
    `${base}/admin/devices`,
    adminInit({ name: `bench-${randomUUID().slice(0, 8)}`, requisite_ids: [requisite.id] }),
  )) as { sms_gateway: { url: string; signing_key: string } };
  const path = new URL(device.sms_gateway.url).pathname;
  const latencies: number[] = [];
  let confirmed = 0;
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify({
      merchant_id: merchant.id,
      amount: 1000 + ((i * 37) % 40_000),
      type: 'vtb',
      order_id: `bm-${process.pid}-${i}`,
      client_id: `payer-${i}`,
    });
    const order = (await call(`${base}/merchant/createOrder`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'client-api-key': merchant.key,
        'x-api-key': sign(merchant.key, body),
      },
      body,
    })) as { payment_details: { amount: string } };
    const at = new Date();
    const amount = Number(order.payment_details.amount).toFixed(2);
    const text = `Поступление ${amount} ₽ Счет*${mask}. от ИНГА К. Баланс 7842.3 ₽ ${moscowTime(at).slice(11, 16)}`;
    const sms = smsReceivedBody({ sender: 'VTB', text, receivedAt: at });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac('sha256', device.sms_gateway.signing_key)
      .update(sms)
      .update(timestamp)
      .digest('hex');
    const started = performance.now();
    const answer = await call(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-timestamp': timestamp,
        'x-signature': signature,
      },
      body: sms,
    });
    latencies.push(performance.now() - started);
    if (answer.status === 'confirmed') confirmed++;
  }
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)] ?? Number.NaN;
  return { reported: n, confirmed, p50: Math.round(at(50) * 10) / 10, p95: Math.round(at(95) * 10) / 10 };
}
