/** What the bench's tools set up through the service and the database: a merchant, a pool. */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { BenchMerchant } from './requests.js';

/** A new merchant made through the admin API of the service at `base`, named `<prefix>_<random>`. */
export async function benchMerchant(
  base: string,
  adminToken: string,
  prefix: string,
): Promise<BenchMerchant> {
  const res = await fetch(`${base}/admin/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ merchant_id: `${prefix}_${randomUUID().slice(0, 8)}` }),
  });
  const made = ((await res.json()) as { data: { merchant_id: string; api_key: string } }).data;
  return { id: made.merchant_id, key: made.api_key };
}

/** `count` RUB phone requisites at Sberbank written straight to the table (what the `sim` load takes). */
export async function addPhonePool(db: pg.Client, count: number): Promise<void> {
  await db.query(
    `INSERT INTO requisites (kind, bank, address, holder_name, currency)
     SELECT 'phone', 'Sberbank', '7' || (9100000000 + g)::text, 'Bench', 'RUB' FROM generate_series(0, $1::int - 1) AS g`,
    [count],
  );
}
