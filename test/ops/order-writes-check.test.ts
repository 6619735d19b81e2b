// The one-writer rule of the orders table (docs/architecture.md "What orders offers"): outside
// src/modules/orders, the orders index's `ordersForReading` may be read, never written or handed on.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { orderWritesIn } from '../../scripts/check-order-writes.js';

const header = `import { and, eq } from 'drizzle-orm';
import { type OrderRow, ordersForReading as orders } from '../../modules/orders/index.js';
`;
const linesOf = (body: string) => orderWritesIn(header + body).map((f) => f.line - 2);

describe('check-order-writes', () => {
  it('takes selects, joins, columns and SQL fragments that read', () => {
    const body = `/** The orders of a requisite (a comment naming orders is no use). */
const rows = await ex.select({ id: orders.id }).from(orders).where(eq(orders.status, 'pending'));
const joined = await ex.select().from(other).leftJoin(orders, eq(orders.id, other.orderId));
const used = sql\`EXISTS (SELECT 1 FROM \${orders} WHERE \${orders.method} = 'crypto')\`;
const text = 'orders';
`;
    assert.deepEqual(linesOf(body), []);
  });

  it('refuses insert, update and delete through the export or its alias', () => {
    const body = `await tx.update(orders).set({ status: 'success' });
await tx.insert(orders).values(row);
await tx.delete( orders ).where(eq(orders.id, id));
await tx.update(ordersForReading).set({});
`;
    assert.deepEqual(linesOf(body), [1, 2, 3, 4]);
  });

  it('refuses SQL that writes it', () => {
    // `${orders}` inside a SQL template of the checked source, kept as text here.
    const table = ['$', '{orders}'].join('');
    assert.deepEqual(linesOf(`await tx.execute(sql\`UPDATE ${table} SET status = 1\`);\n`), [1]);
    assert.deepEqual(linesOf(`await tx.execute(sql\`delete from ${table}\`);\n`), [1]);
  });

  it('refuses handing it on, where a write could not be seen', () => {
    const body = `const table = orders;
writeSomewhere(orders);
export { ordersForReading };
`;
    assert.deepEqual(linesOf(body), [1, 2, 3]);
  });

  it('passes on the service as it is', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/check-order-writes.ts'], {
      encoding: 'utf8',
    });
    assert.match(out, /written only by src\/modules\/orders/);
  });
});
