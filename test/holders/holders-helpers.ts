import { randomUUID } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { orders } from '../../src/db/tables/orders.js';
import { money } from '../../src/lib/money.js';
import type { TestApp } from '../helpers/app.js';
import { admin, createOrder, type TestMerchant } from '../helpers/merchant-client.js';

// Helpers of the holders' tests: operators of each role, confirmed pay-ins and the holder's answer.

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT';

/** Creates an operator of each role with an API token; answers a request function acting as a role. */
export async function operatorsByRole(t: TestApp) {
  const tokens: Record<string, string> = {};
  for (const role of ['admin', 'support', 'payouts', 'viewer']) {
    const username = `${role}-${randomUUID().slice(0, 8)}`;
    await admin(t.app, 'POST', '/admin/operators', { username, role });
    tokens[role] = (
      await admin<{ token: string }>(t.app, 'POST', `/admin/operators/${username}/tokens`, { name: 'test' })
    ).token;
  }
  return (role: string, method: Method, url: string, body?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${tokens[role]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
}

/**
 * Creates a fiat PAYIN and confirms it as an operator. Answers the order's requisite and what the
 * payer was asked to pay (the amount a holder's card received).
 */
export async function confirmedPayin(t: TestApp, merchant: TestMerchant, amount: number) {
  const res = await createOrder(t.app, merchant, { amount });
  if (res.statusCode !== 200) throw new Error(`createOrder -> ${res.statusCode} ${res.body}`);
  const id = (res.json() as { id: string }).id;
  await admin(t.app, 'POST', `/admin/orders/${id}/confirm`, {});
  const row = (await t.database.db.select().from(orders).where(eq(orders.id, id)))[0];
  if (!row || row.status !== 'success') throw new Error(`order ${id} was not confirmed`);
  return { id, requisiteId: row.requisiteId, payable: row.payableAmount, row };
}

/** A holder's figures as `GET /admin/holders/{id}` answers them. */
export interface Books {
  currency: string;
  received: string;
  settled: string;
  corrections: string;
  paid_out: string;
  held: string;
  commission: string;
}

/**
 * What the orders table says a holder's requisites received: the sum of `payable_amount` of their
 * confirmed live fiat PAYINs (other test files share the pool on PostgreSQL, so their orders count
 * too). The check of the ledger's figure against the orders'.
 */
export async function receivedPerOrders(t: TestApp, requisiteIds: string[]): Promise<string> {
  const rows = await t.database.db
    .select({ sum: sql<string | null>`sum(${orders.payableAmount})` })
    .from(orders)
    .where(
      and(
        inArray(orders.requisiteId, requisiteIds),
        eq(orders.status, 'success'),
        eq(orders.method, 'fiat'),
        eq(orders.test, false),
      ),
    );
  return money(rows[0]?.sum ?? 0).toFixed();
}

/** Takes requisites out of the pool so that no other test's order lands on them any more. */
export async function disableRequisites(t: TestApp, ids: string[]) {
  for (const id of ids) await admin(t.app, 'PATCH', `/admin/requisites/${id}`, { enabled: false });
}
