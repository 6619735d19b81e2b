/**
 * The bench's baseline: a bare Fastify app on the same driver (node-postgres pool) doing one INSERT
 * into a table as wide as `orders`, or one SELECT by primary key. Env: DATABASE_URL, PORT.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

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
app.post('/insert', async () => {
  const id = `lux${randomUUID()}`;
  await pool.query(
    insertSql,
    cols.map((c) => (c === 'id' ? id : c === 'external_id' ? id : sample[c])),
  );
  return { ok: true, id };
});
app.get('/select/:id', async (request) => {
  const { rows } = await pool.query('SELECT * FROM orders WHERE id = $1', [
    (request.params as { id: string }).id,
  ]);
  return { success: true, data: rows[0] };
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.stdout.write('ready\n');
