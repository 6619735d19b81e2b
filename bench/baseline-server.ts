/**
 * The bench's baseline: a bare Fastify app on the same driver (node-postgres pool) doing one INSERT
 * into a table as wide as `orders` from the same JSON body the service takes, or one SELECT of an
 * order by internal id (`lux...`) or by the merchant's order_id, as the service reads it. No auth,
 * no rules: the ceiling of one statement per request. Env: DATABASE_URL, PORT, MERCHANT_ID.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const merchantId = process.env.MERCHANT_ID ?? '';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query('CREATE TABLE IF NOT EXISTS bench_orders (LIKE orders INCLUDING DEFAULTS)');
await pool.query('ALTER TABLE bench_orders DROP CONSTRAINT IF EXISTS bench_orders_pkey');
await pool.query('CREATE UNIQUE INDEX IF NOT EXISTS bench_orders_pk ON bench_orders (id)');
const cols = (
  await pool.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_name = 'bench_orders' ORDER BY ordinal_position",
  )
).rows.map((r) => r.column_name);
const sample = (await pool.query('SELECT * FROM orders LIMIT 1')).rows[0] as Record<string, unknown>;
const insertSql = `INSERT INTO bench_orders (${cols.join(',')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(',')})`;

const app = Fastify();
app.post('/insert', async (request) => {
  const body = request.body as { merchant_id: string; order_id: string; amount: number };
  const id = `lux${randomUUID()}`;
  const own: Record<string, unknown> = {
    id,
    external_id: body.order_id,
    merchant_id: body.merchant_id,
    amount: body.amount,
    payable_amount: body.amount,
  };
  await pool.query(
    { name: 'bench_insert', text: insertSql },
    cols.map((c) => (c in own ? own[c] : sample[c])),
  );
  return { success: true, data: { id } };
});
app.get('/select/:id', async (request) => {
  const { id } = request.params as { id: string };
  const { rows } = id.startsWith('lux')
    ? await pool.query({ name: 'bench_by_id', text: 'SELECT * FROM orders WHERE id = $1', values: [id] })
    : await pool.query({
        name: 'bench_by_external',
        text: 'SELECT * FROM orders WHERE merchant_id = $1 AND external_id = $2',
        values: [merchantId, id],
      });
  return { success: true, data: rows[0] };
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.stdout.write('ready\n');
