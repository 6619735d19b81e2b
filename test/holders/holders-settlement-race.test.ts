import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { holders } from '../../src/db/tables/holders.js';
import { money } from '../../src/lib/money.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/database.js';
import { admin, adminRaw } from '../helpers/merchant-client.js';
import type { Books } from './holders-helpers.js';

// Settlements in parallel (docs/decisions.md "Settlements in parallel"): each one locks its holder's
// row before it reads what they hold, so parallel settlements that together exceed it are settled
// one after another; those that no longer fit are refused with SETTLEMENT_EXCEEDS_HELD and write
// nothing. On PostgreSQL these are real parallel requests on separate connections; PGlite runs them
// one at a time, so the same assertions hold there trivially. Synthetic holders and amounts.

describe('holders: parallel settlements never take held below zero', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** A holder holding `held` RUB (an admin's correction: no order, no requisite, no pool). */
  async function holderHolding(held: string) {
    const holder = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', { name: 'Synthetic racer' });
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, {
      amount: held,
      reason: 'synthetic opening balance',
    });
    return holder.id;
  }

  const settle = (id: string, amount: string, i: number) =>
    adminRaw(t.app, 'POST', `/admin/holders/${id}/settlements`, {
      amount,
      method: 'cash',
      reference: `synthetic parallel ${i}`,
    });

  it(`${onPostgres() ? 'PostgreSQL' : 'PGlite'}: 10 parallel settlements of 3000 against 10000 held -> 3 pass, 7 refused, held 1000`, async () => {
    const id = await holderHolding('10000');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => settle(id, '3000', i)));
    const ok = results.filter((r) => r.statusCode === 200);
    const refused = results.filter((r) => r.statusCode !== 200);
    assert.equal(ok.length, 3, results.map((r) => r.body).join('\n'));
    for (const r of refused) {
      assert.equal(r.statusCode, 409, r.body);
      assert.equal(r.json().message, 'SETTLEMENT_EXCEEDS_HELD', r.body);
    }
    const read = await admin<{ books: Books; settlements: unknown[] }>(t.app, 'GET', `/admin/holders/${id}`);
    assert.equal(read.books.held, '1000');
    assert.equal(read.books.settled, '9000');
    // One settlement row per settlement that passed, and the correction.
    assert.equal(read.settlements.length, 4);
    const row = (await t.database.db.select().from(holders).where(eq(holders.id, id)))[0];
    assert.equal(money(row?.heldRub ?? 'NaN').toFixed(), '1000', 'held_rub is kept with the ledger');
  });

  it('settlements and negative corrections in parallel: no settlement ever leaves held below zero', async () => {
    const id = await holderHolding('5000');
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => settle(id, '1000', i)),
      ...Array.from({ length: 3 }, () =>
        adminRaw(t.app, 'POST', `/admin/holders/${id}/corrections`, {
          amount: '-500',
          reason: 'synthetic parallel correction',
        }),
      ),
    ]);
    const settled = results.slice(0, 6).filter((r) => r.statusCode === 200).length;
    for (const r of results.slice(0, 6).filter((x) => x.statusCode !== 200))
      assert.equal(r.json().message, 'SETTLEMENT_EXCEEDS_HELD', r.body);
    for (const r of results.slice(6)) assert.equal(r.statusCode, 200, r.body);
    const read = await admin<{ books: Books }>(t.app, 'GET', `/admin/holders/${id}`);
    // The corrections always pass (an admin's word, which may take held below zero); settlements
    // take only what is left at their turn.
    assert.equal(
      read.books.held,
      money(5000)
        .minus(1500)
        .minus(settled * 1000)
        .toFixed(),
    );
    assert.ok(settled >= 3 && settled <= 5, `settled ${settled}`);
    const statement = await admin<{ entries: { kind: string; balance: string }[] }>(
      t.app,
      'GET',
      `/admin/holders/${id}/statement`,
    );
    const afterSettlements = statement.entries.filter((e) => e.kind === 'holder_settlement');
    assert.equal(afterSettlements.length, settled);
    for (const e of afterSettlements) assert.ok(money(e.balance).gte(0), JSON.stringify(statement.entries));
  });
});
