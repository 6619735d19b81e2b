// Reliability invariant: 200 concurrent mixed money operations on one merchant
// (payouts, confirmations, cancellations, ledger adjustments). After every batch, and in consistent
// snapshots taken while the batch runs: the available balance is never negative, the ledger sums to
// the balance, active holds sum to the reserved amount, no hold is leaked and every journal balances
// (docs/decisions.md sections 5, 6, 10). The figures also equal a model replayed from the 200 answers.
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { rowsOf } from '../../src/db/database.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase, needsPostgres } from '../helpers/database.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  type TestMerchant,
} from '../helpers/merchant-client.js';

const OPS = 200;
const BATCH = 25;
const FUNDS = 100_000;

/** Money in integer kopecks, so that the model never meets binary fractions. */
const cents = (v: number | string): number => Math.round(Number(v) * 100);

interface Order {
  id: string;
  /** What the order moves, in kopecks: the PAYIN credit, or the payout debit (amount + fee). */
  net: number;
}

type Op =
  | { kind: 'payout'; amount: number }
  | { kind: 'confirm-payin' | 'cancel-payin'; order: Order }
  | { kind: 'confirm-payout' | 'cancel-payout'; order: Order }
  | { kind: 'adjust'; amount: number };

/** What a snapshot of the database says about the merchant; `problems` lists broken invariants. */
interface Snapshot {
  balance: number;
  reserved: number;
  problems: string[];
}

describe('200 mixed money operations on one merchant keep the ledger invariants', {
  skip: needsPostgres('PGlite runs one query at a time'),
}, () => {
  let t: TestApp;
  let merchant: TestMerchant;
  let dropDatabase: () => Promise<void> = async () => undefined;

  before(async () => {
    // A database of its own: the journal check below covers every journal in it.
    dropDatabase = await isolateDatabase('inv_balance');
    t = await startTestApp();
    merchant = await createMerchant(t.app, { payin_fee_percent: 2.5, payout_fee_percent: 1.5 });
    for (let i = 0; i < 5; i++) await addRequisite(t.app, { kind: 'phone' });
  });
  after(async () => {
    await t?.close();
    await dropDatabase();
  });

  /** Reads every figure in one REPEATABLE READ snapshot and checks the invariants against each other. */
  async function snapshot(): Promise<Snapshot> {
    const m = merchant.id;
    return t.database.db.transaction(
      async (tx) => {
        const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await tx.execute(query));
        const problems: string[] = [];
        const [bal] = await q<{ balance: string; reserved: string }>(
          sql`SELECT balance::text, reserved::text FROM balances WHERE merchant_id = ${m} AND currency = 'RUB'`,
        );
        const balance = cents(bal?.balance ?? 0);
        const reserved = cents(bal?.reserved ?? 0);
        const [ledger] = await q<{ s: string }>(
          sql`SELECT coalesce(sum(amount), 0)::text AS s FROM ledger_entries
              WHERE account = ${`merchant:${m}`} AND currency = 'RUB'`,
        );
        const [held] = await q<{ s: string }>(
          sql`SELECT coalesce(sum(amount), 0)::text AS s FROM holds
              WHERE merchant_id = ${m} AND currency = 'RUB' AND status = 'active'`,
        );
        if (cents(ledger?.s ?? 0) !== balance)
          problems.push(`ledger sum ${ledger?.s} != balance ${bal?.balance}`);
        if (cents(held?.s ?? 0) !== reserved)
          problems.push(`active holds ${held?.s} != reserved ${bal?.reserved}`);
        if (balance < 0) problems.push(`balance ${bal?.balance} < 0`);
        if (balance - reserved < 0) problems.push(`available ${bal?.balance} - ${bal?.reserved} < 0`);
        const other = await q<{ currency: string }>(
          sql`SELECT currency FROM balances WHERE merchant_id = ${m} AND currency <> 'RUB'
                AND (balance <> 0 OR reserved <> 0)`,
        );
        if (other.length > 0) problems.push(`money in other currencies: ${JSON.stringify(other)}`);
        // Every payout: pending with an active hold, success with a captured one, error with a released one.
        const leaks = await q<Record<string, string | null>>(sql`
          SELECT o.id, o.status, h.status AS hold, o.amount_after_fee::text AS aaf, h.amount::text AS held
          FROM orders o LEFT JOIN holds h ON h.order_id = o.id
          WHERE o.merchant_id = ${m} AND o.method = 'payout' AND (h.order_id IS NULL
            OR h.amount <> o.amount_after_fee
            OR NOT ((o.status = 'pending' AND h.status = 'active') OR (o.status = 'success' AND h.status = 'captured')
                 OR (o.status = 'error' AND h.status = 'released')))`);
        if (leaks.length > 0) problems.push(`payout/hold mismatch: ${JSON.stringify(leaks.slice(0, 5))}`);
        // Every journal sums to zero per currency (the database is this file's alone).
        const unbalanced = await q<{ journal_id: string }>(sql`
          SELECT journal_id, currency, sum(amount)::text AS s FROM ledger_entries
          GROUP BY journal_id, currency HAVING sum(amount) <> 0`);
        if (unbalanced.length > 0)
          problems.push(`unbalanced journals: ${JSON.stringify(unbalanced.slice(0, 5))}`);
        // Each successful order has exactly one journal of its kind moving its amount; others none.
        const postings = await q<Record<string, string | number | null>>(sql`
          SELECT o.id, o.status, o.method, o.amount_after_fee::text AS aaf,
                 count(DISTINCT e.journal_id)::int AS journals, coalesce(sum(e.amount), 0)::text AS moved
          FROM orders o LEFT JOIN ledger_entries e ON e.order_id = o.id AND e.account = ${`merchant:${m}`}
          WHERE o.merchant_id = ${m}
          GROUP BY o.id
          HAVING (o.status = 'success' AND (count(DISTINCT e.journal_id) <> 1
                   OR sum(e.amount) <> CASE WHEN o.method = 'payout' THEN -o.amount_after_fee ELSE o.amount_after_fee END))
              OR (o.status <> 'success' AND count(e.id) <> 0)`);
        if (postings.length > 0) problems.push(`order postings: ${JSON.stringify(postings.slice(0, 5))}`);
        return { balance, reserved, problems };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
  }

  const payout = (amount: number) =>
    merchantRequest(t.app, merchant, '/merchant/createOrder', {
      body: {
        merchant_id: merchant.id,
        amount,
        type: 'card',
        direction: 'PAYOUT',
        order_id: `mix-${randomUUID()}`,
        payout_details: { holderAccount: '2200123456789012', holderName: 'Ivan Petrov', methodName: 'VTB' },
      },
    });

  const send = (op: Op): Promise<LightMyRequestResponse> => {
    switch (op.kind) {
      case 'payout':
        return payout(op.amount);
      case 'adjust':
        return adminRaw(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
          currency: 'RUB',
          amount: op.amount,
          reason: 'mixed operations test',
        });
      case 'confirm-payin':
      case 'confirm-payout':
        // A reason, so that a late confirmation of a cancelled PAYIN is allowed (docs/decisions.md section 5).
        return adminRaw(t.app, 'POST', `/admin/orders/${op.order.id}/confirm`, { reason: 'paid' });
      case 'cancel-payin':
      case 'cancel-payout':
        return adminRaw(t.app, 'POST', `/admin/orders/${op.order.id}/cancel`, { reason: 'mixed test' });
    }
  };

  /** The answers each operation may give; anything else (a 500 above all) fails the test. */
  const allowed: Record<Op['kind'], string[]> = {
    payout: ['200', '400 INSUFFICIENT_BALANCE'],
    adjust: ['200', '400 INSUFFICIENT_BALANCE'],
    'confirm-payin': ['200', '409 ORDER_STATE_CONFLICT'],
    'cancel-payin': ['200', '409 ORDER_STATE_CONFLICT'],
    'confirm-payout': ['200', '409 ORDER_STATE_CONFLICT'],
    'cancel-payout': ['200', '409 ORDER_STATE_CONFLICT'],
  };
  const outcome = (r: LightMyRequestResponse) =>
    r.statusCode === 200 ? '200' : `${r.statusCode} ${(r.json() as { message?: string }).message}`;

  it('after every batch and in snapshots during it: balance = ledger, reserved = holds, available >= 0', {
    timeout: 120_000,
  }, async (ctx) => {
    await admin(t.app, 'POST', `/admin/merchants/${merchant.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: FUNDS,
      reason: 'funds for the mixed test',
    });
    // Pools: 40 pending PAYIN orders and 30 pending payouts, made before the storm.
    const payins: Order[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await createOrder(t.app, merchant, { amount: randomInt(1000, 10_000), type: 'sim' });
      assert.equal(res.statusCode, 200, res.body);
      payins.push({ id: res.json().id, net: cents(res.json().amountAfterFee) });
    }
    let pendingPayouts: Order[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await payout(randomInt(500, 2500));
      assert.equal(res.statusCode, 200, res.body);
      pendingPayouts.push({ id: res.json().id, net: cents(res.json().amountAfterFee) });
    }
    const start = await snapshot();
    assert.deepEqual(start.problems, [], 'invariants before the storm');
    const model = { balance: cents(FUNDS), reserved: pendingPayouts.reduce((s, o) => s + o.net, 0) };
    assert.deepEqual(
      [start.balance, start.reserved],
      [model.balance, model.reserved],
      'figures before the storm',
    );

    const tally = new Map<string, number>();
    let samples = 0;
    const t0 = performance.now();
    for (let done = 0; done < OPS; done += BATCH) {
      const available = model.balance - model.reserved;
      const pick = <T>(list: T[]): T | undefined => list[randomInt(0, Math.max(1, list.length))];
      const ops: Op[] = Array.from({ length: Math.min(BATCH, OPS - done) }, (): Op => {
        const roll = randomInt(0, 100);
        const payin = pick(payins);
        const pending = pick(pendingPayouts);
        if (roll < 30 || !pending) return { kind: 'payout', amount: randomInt(500, 15_000) };
        if (roll < 45 && payin) return { kind: 'confirm-payin', order: payin };
        if (roll < 50 && payin) return { kind: 'cancel-payin', order: payin };
        if (roll < 65) return { kind: 'confirm-payout', order: pending };
        if (roll < 80) return { kind: 'cancel-payout', order: pending };
        // Debits reach past the available amount now and then: INSUFFICIENT_BALANCE must stop them.
        return roll < 88
          ? { kind: 'adjust', amount: randomInt(100, 20_000) }
          : { kind: 'adjust', amount: -randomInt(100, Math.max(200, Math.round((available / 100) * 0.8))) };
      });

      // Consistent snapshots while the batch runs.
      let running = true;
      const problems: string[] = [];
      const sampler = (async () => {
        while (running) {
          const s = await snapshot();
          samples++;
          problems.push(...s.problems);
        }
      })();
      const results = await Promise.all(ops.map(send));
      running = false;
      await sampler;
      assert.deepEqual(problems, [], `invariants broken in a snapshot during batch ${done / BATCH + 1}`);

      // Replay the answers into the model; every answer must be one the operation may give.
      const finished = new Set<string>();
      ops.forEach((op, i) => {
        const res = results[i] as LightMyRequestResponse;
        const got = outcome(res);
        tally.set(`${op.kind} ${got}`, (tally.get(`${op.kind} ${got}`) ?? 0) + 1);
        assert.ok(
          allowed[op.kind].includes(got),
          `${op.kind} ${JSON.stringify(op)} answered ${res.statusCode} ${res.body}`,
        );
        if (got !== '200') return;
        if (op.kind === 'payout') {
          const net = cents(res.json().amountAfterFee);
          model.reserved += net;
          pendingPayouts.push({ id: res.json().id, net });
        } else if (op.kind === 'adjust') model.balance += cents(op.amount);
        else if (op.kind === 'confirm-payin') model.balance += op.order.net;
        else if (op.kind === 'confirm-payout') {
          model.balance -= op.order.net;
          model.reserved -= op.order.net;
          finished.add(op.order.id);
        } else if (op.kind === 'cancel-payout') {
          model.reserved -= op.order.net;
          finished.add(op.order.id);
        }
      });
      pendingPayouts = pendingPayouts.filter((o) => !finished.has(o.id));
      const s = await snapshot();
      assert.deepEqual(s.problems, [], `invariants after batch ${done / BATCH + 1}`);
      assert.deepEqual(
        { balance: s.balance, reserved: s.reserved },
        model,
        `database vs the model replayed from the answers after batch ${done / BATCH + 1} (kopecks)`,
      );
    }
    const ms = Math.round(performance.now() - t0);
    ctx.diagnostic(`${OPS} operations in batches of ${BATCH}: ${ms} ms; ${samples} snapshots checked`);
    ctx.diagnostic(`answers: ${JSON.stringify(Object.fromEntries([...tally].sort()))}`);
    ctx.diagnostic(`final balance ${model.balance / 100}, reserved ${model.reserved / 100}`);

    // The storm must have exercised the interesting paths, else the invariants proved little.
    for (const needed of ['payout 200', 'confirm-payout 200', 'cancel-payout 200', 'confirm-payin 200']) {
      assert.ok((tally.get(needed) ?? 0) > 0, `no "${needed}" in ${JSON.stringify([...tally])}`);
    }

    // The merchant's own view agrees with the database.
    const res = await merchantRequest(t.app, merchant, `/merchant/balance/${merchant.id}`);
    assert.equal(res.statusCode, 200, res.body);
    const view = res.json() as { balance: number; reserved: number; available: number };
    assert.deepEqual(
      [cents(view.balance), cents(view.reserved), cents(view.available)],
      [model.balance, model.reserved, model.balance - model.reserved],
      res.body,
    );
  });
});
