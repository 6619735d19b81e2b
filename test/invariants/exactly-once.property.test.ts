// Exactly once in the schema (docs/decisions.md section 35): every path that can end an order
// (device message, operator confirmation, late payment, appeal accept, chain credit, manual crypto
// confirmation, sandbox outcome, expiry, cancel, and a move made with no order lock at all) runs at
// once on the same orders. Whatever the interleaving: each order ends once, its ledger entries sum to
// what the order says it credited, and every balance equals the sum of its ledger. Orders, amounts
// and transaction hashes are synthetic.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { rowsOf } from '../../src/db/database.js';
import { AppError } from '../../src/lib/errors.js';
import { money } from '../../src/lib/money.js';
import { createOrderLifecycle, type OrderRow, orderQueries } from '../../src/modules/orders/index.js';
import type { DeviceRow } from '../../src/rails/devices/devices-repository.js';
import { CHAIN_WATCHER_TOKEN, manualClock, startTestApp, type TestApp } from '../helpers/app.js';
import { isolateDatabase, needsPostgres } from '../helpers/database.js';
import { multipartBody, pdfFile } from '../helpers/files.js';
import {
  addRequisite,
  admin,
  adminRaw,
  createMerchant,
  createOrder,
  merchantRequest,
  sign,
  type TestMerchant,
} from '../helpers/merchant-client.js';
import { pairDevice } from '../helpers/phones.js';

type Kind = 'fiat' | 'crypto' | 'payout' | 'sandbox';
interface Target {
  id: string;
  kind: Kind;
}
const PATHS = [
  'device',
  'confirm',
  'late',
  'appeal',
  'chain',
  'manual',
  'sandbox',
  'expiry',
  'cancel',
  'unlocked-succeed',
  'unlocked-fail',
] as const;
type Path = (typeof PATHS)[number];

/** The 'abandon ... about' test key (BIP-39's published test vector): addresses only, never funds. */
const BTC_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(`${'abandon '.repeat(11)}about`)).derive(
  "m/84'/0'/0'",
).publicExtendedKey;

describe('every path that ends an order, run at once on the same orders, moves money exactly once', {
  skip: needsPostgres('concurrent transactions need PostgreSQL (PGlite runs one query at a time)'),
}, () => {
  const clock = manualClock();
  let t: TestApp;
  let live: TestMerchant;
  let test: TestMerchant;
  /** One paired phone per requisite, and the card-account ending its bank's texts show. */
  const phoneOf = new Map<string, { device: DeviceRow; mask: string }>();
  let dropDatabase: () => Promise<void> = async () => undefined;
  /** A lifecycle of its own, called with no order lock: a future path that forgot `lockOrder`. */
  const bare = createOrderLifecycle({});

  before(async () => {
    dropDatabase = await isolateDatabase('inv_once');
    t = await startTestApp({ clock });
    live = await createMerchant(t.app, {
      payment_types: ['sim', 'card', 'btc'],
      payin_fee_percent: 2.5,
      payout_fee_percent: 1.5,
    });
    const key = await admin<{ api_key: string }>(t.app, 'POST', `/admin/merchants/${live.id}/api-keys`, {
      mode: 'test',
    });
    test = { id: live.id, apiKey: key.api_key };
    await admin(t.app, 'PUT', '/admin/crypto/xpubs', { network: 'btc', xpub: BTC_XPUB });
    await admin(t.app, 'PUT', '/admin/rates', { base: 'BTC', quote: 'RUB', rate: '3000000' });
    await admin(t.app, 'PUT', '/admin/rates', { base: 'USDT', quote: 'RUB', rate: '90' });
    await admin(t.app, 'POST', `/admin/merchants/${live.id}/ledger-adjustments`, {
      currency: 'RUB',
      amount: '100000000',
      reason: 'synthetic funds for payouts',
    });
    for (let i = 0; i < 4; i++) {
      const requisite = (await addRequisite(t.app, { kind: 'phone' })).id;
      const mask = String(4610 + i);
      await admin(t.app, 'PATCH', `/admin/requisites/${requisite}`, { masks: [mask] });
      const paired = await pairDevice(t.app, [requisite]);
      const row = await t.services.devices.deviceByToken(paired.token);
      assert.ok(row, 'the paired device');
      phoneOf.set(requisite, { device: row, mask });
    }
  });
  after(async () => {
    await t?.close();
    await dropDatabase();
  });

  const ok = (res: LightMyRequestResponse) => {
    assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
  };
  /** An application error is a refusal (409, 400, 404); anything else is a failure of the test. */
  const refusal = (err: unknown) => {
    if (!(err instanceof AppError)) throw err;
  };

  async function create(kind: Kind): Promise<Target> {
    const res =
      kind === 'fiat'
        ? await createOrder(t.app, live)
        : kind === 'sandbox'
          ? await createOrder(t.app, test, { type: 'sim' })
          : kind === 'crypto'
            ? await createOrder(t.app, live, { amount: 0.01, type: 'btc', currency: 'BTC' })
            : await createOrder(t.app, live, {
                amount: 1000 + Math.floor(Math.random() * 9000),
                type: 'card',
                direction: 'PAYOUT',
                payout_details: {
                  holderAccount: '2200000000000004',
                  holderName: 'SYNTHETIC',
                  methodName: 'VTB',
                },
              });
    assert.equal(res.statusCode, 200, res.body);
    return { id: res.json().id, kind };
  }

  async function run(path: Path, target: Target): Promise<void> {
    const order = (await orderQueries.findOrderById(t.database.db, target.id)) as OrderRow;
    const crypto = target.kind === 'crypto';
    const now = new Date(clock.now());
    switch (path) {
      case 'device': {
        const phone = order.requisiteId ? phoneOf.get(order.requisiteId) : undefined;
        if (!phone || crypto) return;
        // Sberbank's SBP credit as the corpus records it (test/fixtures/bank-messages/corpus/sber.json).
        const amount = Number(order.payableAmount ?? order.amount);
        const hhmm = new Date(now.getTime() + 3 * 3600_000).toISOString().slice(11, 16);
        await t.services.deviceIngest
          .message(phone.device, 'native', {
            channel: 'sms',
            source: '900',
            text: `СЧЁТ${phone.mask} ${hhmm} Перевод по СБП из Альфа-Банк +${amount}р от ЕКАТЕРИНА Г. Баланс: 1800р`,
            receivedAt: now,
          })
          .catch(refusal);
        return;
      }
      case 'confirm':
        return ok(
          await adminRaw(t.app, 'POST', `/admin/orders/${order.id}/confirm`, confirmBody(order, crypto)),
        );
      case 'late':
        return ok(
          await adminRaw(t.app, 'POST', `/admin/orders/${order.id}/confirm`, {
            ...confirmBody(order, crypto),
            reason: 'late payment (synthetic)',
          }),
        );
      case 'cancel':
        return ok(await adminRaw(t.app, 'POST', `/admin/orders/${order.id}/cancel`, { reason: 'race' }));
      case 'appeal':
        return appealAndAccept(order);
      case 'chain':
        if (!crypto) return;
        return ok(
          await t.app.inject({
            method: 'POST',
            url: '/chain/notifications',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${CHAIN_WATCHER_TOKEN}` },
            payload: JSON.stringify({
              network: 'BTC',
              address: order.pdAddress,
              tx_hash: randomBytes(32).toString('hex'),
              amount: order.cryptoAmount,
              confirmations: 12,
            }),
          }),
        );
      case 'manual':
        if (!crypto) return;
        return ok(
          await adminRaw(t.app, 'POST', `/admin/orders/${order.id}/confirm`, confirmBody(order, crypto)),
        );
      case 'sandbox':
        return ok(
          await merchantRequest(t.app, test, `/merchant/sandbox/orders/${order.id}/outcome`, {
            body: { outcome: 'paid' },
          }),
        );
      case 'expiry':
        await t.services.orders.expireDue();
        return;
      case 'unlocked-succeed':
      case 'unlocked-fail': {
        const ctx = { actor: 'system', reason: 'unlocked (synthetic)', now };
        await t.database.db
          .transaction((tx) =>
            path === 'unlocked-succeed' ? bare.succeed(tx, order, ctx) : bare.fail(tx, order, ctx),
          )
          .catch(refusal);
        return;
      }
    }
  }

  function confirmBody(order: OrderRow, crypto: boolean): Record<string, unknown> {
    return crypto ? { tx_hash: randomBytes(32).toString('hex'), received_amount: order.cryptoAmount } : {};
  }

  async function appealAndAccept(order: OrderRow): Promise<void> {
    const { body, contentType } = multipartBody(
      { orderId: order.id },
      { field: 'receipt', filename: 'r.pdf', contentType: 'application/pdf', data: pdfFile('paid') },
    );
    const opened = await t.app.inject({
      method: 'POST',
      url: '/merchant/appeals',
      headers: {
        'content-type': contentType,
        'client-api-key': live.apiKey,
        'x-api-key': sign(live.apiKey, ''),
      },
      payload: body,
    });
    ok(opened);
    if (opened.statusCode !== 200) return;
    ok(await adminRaw(t.app, 'POST', `/admin/appeals/${opened.json().data.id}/accept`, {}));
  }

  /** What the database says about the orders and the merchant; each broken invariant as a line. */
  async function problems(targets: Target[]): Promise<string[]> {
    const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await t.database.db.execute(query));
    const found: string[] = [];
    for (const { id, kind } of targets) {
      const order = (await orderQueries.findOrderById(t.database.db, id)) as OrderRow;
      const ends = await q<{ to_status: string; n: number }>(
        sql`SELECT to_status, count(*)::int AS n FROM order_events WHERE order_id = ${id} AND from_status IS NOT NULL GROUP BY to_status`,
      );
      for (const e of ends) if (e.n > 1) found.push(`${kind} ${id} reached ${e.to_status} ${e.n} times`);
      const [mine] = await q<{ sum: string | null; journals: number }>(
        sql`SELECT sum(amount)::text AS sum, count(DISTINCT journal_id)::int AS journals FROM ledger_entries
            WHERE order_id = ${id} AND account = ${`merchant:${live.id}`}`,
      );
      const posted = money(mine?.sum ?? 0);
      const expected =
        order.status === 'success' && kind !== 'sandbox' ? money(order.creditedAmount ?? 'NaN') : money(0);
      if (!posted.eq(expected))
        found.push(`${kind} ${id} ${order.status}: ledger ${posted}, order ${expected}`);
      if ((mine?.journals ?? 0) > 1) found.push(`${kind} ${id}: ${mine?.journals} journals`);
    }
    const sums = await q<{ currency: string; ledger: string; balance: string | null }>(
      sql`SELECT l.currency, sum(l.amount)::text AS ledger,
            (SELECT b.balance::text FROM balances b WHERE b.merchant_id = ${live.id} AND b.currency = l.currency) AS balance
          FROM ledger_entries l WHERE l.account = ${`merchant:${live.id}`} GROUP BY l.currency`,
    );
    for (const s of sums)
      if (!money(s.ledger).eq(money(s.balance ?? 0)))
        found.push(`${s.currency}: ledger ${s.ledger}, balance ${s.balance}`);
    const [held] = await q<{ reserved: string | null; holds: string | null }>(
      sql`SELECT (SELECT reserved::text FROM balances WHERE merchant_id = ${live.id} AND currency = 'RUB') AS reserved,
            (SELECT sum(amount)::text FROM holds WHERE merchant_id = ${live.id} AND status = 'active') AS holds`,
    );
    if (!money(held?.reserved ?? 0).eq(money(held?.holds ?? 0)))
      found.push(`reserved ${held?.reserved}, active holds ${held?.holds}`);
    return found;
  }

  it('each order ends once, its ledger sums to what it says, every balance to its ledger', async (ctx) => {
    const kinds: Kind[] = ['fiat', 'fiat', 'crypto', 'payout', 'sandbox'];
    /** How the orders ended, per kind: the runs must have moved money, not only refused. */
    const ended = new Map<string, number>();
    const step = fc.record({ path: fc.constantFrom(...PATHS), target: fc.nat(kinds.length - 1) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 4, maxLength: 14 }),
        fc.boolean(),
        async (steps, expire) => {
          const targets: Target[] = [];
          for (const kind of kinds) targets.push(await create(kind));
          if (expire) {
            const ids = targets.map((x) => x.id);
            await t.database.db.execute(
              sql`UPDATE orders SET expires_at = ${new Date(clock.now() - 1000)} WHERE id IN ${ids}`,
            );
          }
          // Every path twice: the same path racing itself, and against the others.
          const all = [...steps, ...steps].map((s) => run(s.path, targets[s.target] as Target));
          const settled = await Promise.allSettled(all);
          const thrown = settled.filter((s) => s.status === 'rejected');
          assert.deepEqual(thrown, [], 'no path threw anything but a refusal');
          assert.deepEqual(await problems(targets), [], JSON.stringify(steps));
          for (const target of targets) {
            const key = `${target.kind}:${(await orderQueries.findOrderById(t.database.db, target.id))?.status}`;
            ended.set(key, (ended.get(key) ?? 0) + 1);
          }
        },
      ),
      { numRuns: 30 },
    );
    ctx.diagnostic(JSON.stringify(Object.fromEntries([...ended].sort())));
    for (const kind of ['fiat', 'crypto', 'payout'])
      assert.ok((ended.get(`${kind}:success`) ?? 0) > 0, `some ${kind} orders succeeded: ${[...ended]}`);
    assert.ok((ended.get('fiat:error') ?? 0) > 0, `some fiat orders failed: ${[...ended]}`);
  });

  it('a move made twice in parallel with no order lock credits once (the schema alone holds)', async () => {
    for (const kind of ['fiat', 'crypto', 'payout'] as const) {
      const target = await create(kind);
      const order = (await orderQueries.findOrderById(t.database.db, target.id)) as OrderRow;
      const ctx = { actor: 'system', reason: null, now: new Date(clock.now()) };
      const answers = await Promise.allSettled(
        Array.from({ length: 8 }, () => t.database.db.transaction((tx) => bare.succeed(tx, order, ctx))),
      );
      const won = answers.filter((a) => a.status === 'fulfilled');
      const lost = answers.filter((a) => a.status === 'rejected');
      assert.equal(won.length, 1, `${kind}: one move wins`);
      for (const l of lost)
        assert.equal((l.reason as AppError).code, 'ORDER_STATE_CONFLICT', `${kind}: ${String(l.reason)}`);
      assert.deepEqual(await problems([target]), [], kind);
    }
  });
});
