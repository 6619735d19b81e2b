// Requisite selection (docs/decisions.md section 7: "least recently assigned, taken atomically") through
// both ways createOrder takes a requisite: the one-statement claim (a free requisite without limits;
// one prepared statement for one-kind types like `sim`, one for several kinds like `any`) and the
// transaction that re-checks a limited requisite's limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, createMerchant, createOrder, type TestMerchant } from '../helpers/merchant-client.js';

describe('requisite selection: least recently assigned first (TJS, KGS and KRW pools of this file)', () => {
  let t: TestApp;
  let merchant: TestMerchant;
  const take = async (currency: string, type: string): Promise<string> => {
    const res = await createOrder(t.app, merchant, { currency, type, amount: 700 });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().payment_details.address as string;
  };

  before(async () => {
    t = await startTestApp();
    merchant = await createMerchant(t.app, { currencies: ['TJS', 'KGS', 'KRW'] });
  });
  after(() => t.close());

  it('a one-kind type goes round the pool: every requisite once, then the same order again', async () => {
    const pool = await Promise.all(
      [1, 2, 3].map(() => addRequisite(t.app, { kind: 'phone', currency: 'TJS' })),
    );
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await take('TJS', 'sim'));
    assert.deepEqual(new Set(seen.slice(0, 3)), new Set(pool.map((r) => r.address)), JSON.stringify(seen));
    assert.deepEqual(seen.slice(3), seen.slice(0, 3), 'the second round repeats the first');
  });

  it('a several-kinds type (any: card or phone) alternates between kinds by last assignment', async () => {
    const card = await addRequisite(t.app, { kind: 'card', currency: 'KGS' });
    const phone = await addRequisite(t.app, { kind: 'phone', currency: 'KGS' });
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) seen.push(await take('KGS', 'any'));
    assert.deepEqual(new Set(seen.slice(0, 2)), new Set([card.address, phone.address]), JSON.stringify(seen));
    assert.deepEqual(seen.slice(2), seen.slice(0, 2), JSON.stringify(seen));
    // A one-kind type in the same pool takes only its kind, and counts as an assignment.
    assert.equal(await take('KGS', 'sim'), phone.address);
    assert.equal(await take('KGS', 'any'), card.address, 'the card is now the least recently assigned');
  });

  it('a limited requisite is still taken in its turn, and skipped once at its limit', async () => {
    const limited = await addRequisite(t.app, { kind: 'phone', currency: 'KRW', max_active_orders: 1 });
    const free = await addRequisite(t.app, { kind: 'phone', currency: 'KRW' });
    const first = [await take('KRW', 'sim'), await take('KRW', 'sim')];
    assert.deepEqual(new Set(first), new Set([limited.address, free.address]), JSON.stringify(first));
    // The limited one has its one active order: every later order goes to the other.
    for (let i = 0; i < 3; i++) assert.equal(await take('KRW', 'sim'), free.address);
  });
});
