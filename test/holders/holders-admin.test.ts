import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { money } from '../../src/lib/money.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, admin, adminRaw, createMerchant } from '../helpers/merchant-client.js';
import {
  type Books,
  confirmedPayin,
  disableRequisites,
  operatorsByRole,
  receivedPerOrders,
} from './holders-helpers.js';

// Synthetic holders, amounts and references: invented for these tests.

interface Holder {
  id: string;
  name: string;
  status: string;
  commission_percent: string;
  exposure_limit: string | null;
  security_deposit: string | null;
  from_migration: boolean;
  held?: string;
  books?: Books;
  requisites?: { id: string }[];
  settlements?: { kind: string; amount: string }[];
}

const expectError = (res: { statusCode: number; body: string }, status: number, code: string) => {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(JSON.parse(res.body).message, code, res.body);
};

describe('admin API: holders, settlements and corrections', () => {
  let t: TestApp;
  let as: Awaited<ReturnType<typeof operatorsByRole>>;
  before(async () => {
    t = await startTestApp();
    as = await operatorsByRole(t);
  });
  after(() => t.close());

  const newHolder = (body: Record<string, unknown> = {}) =>
    admin<Holder>(t.app, 'POST', '/admin/holders', { name: 'Synthetic Holder', ...body });

  /** A holder with one requisite and one confirmed pay-in on it; answers what the card received. */
  async function holderWithPayin(amount = 15_017, percent = '2.5') {
    const holder = await newHolder({ commission_percent: percent, exposure_limit: '500000' });
    const merchant = await createMerchant(t.app);
    // A narrow amount range keeps other test files' orders (PostgreSQL shares the pool) off it.
    const requisite = await addRequisite(t.app, { min_amount: amount - 1, max_amount: amount + 1 });
    await admin(t.app, 'PUT', `/admin/holders/${holder.id}/requisites`, { requisite_ids: [requisite.id] });
    for (;;) {
      // Other requisites of the pool may take an order: confirm until one lands on this holder's.
      const paid = await confirmedPayin(t, merchant, amount);
      if (paid.requisiteId !== requisite.id) continue;
      // Out of the pool from now on: the holder's figures stay this test's own.
      await disableRequisites(t, [requisite.id]);
      return { holder, received: await receivedPerOrders(t, [requisite.id]), orderId: paid.id };
    }
  }

  it('creates, lists, reads and changes a holder with decimal money fields', async () => {
    const created = await newHolder({
      contacts: { telegram: '@synthetic' },
      commission_percent: '1.75',
      exposure_limit: 300000.5,
      security_deposit: '50000',
    });
    assert.equal(created.status, 'active');
    assert.equal(created.commission_percent, '1.75');
    assert.equal(created.exposure_limit, '300000.5');
    assert.equal(created.from_migration, false);
    const listed = (await admin<Holder[]>(t.app, 'GET', '/admin/holders')).find((h) => h.id === created.id);
    assert.equal(listed?.held, '0');
    const changed = await admin<Holder>(t.app, 'PATCH', `/admin/holders/${created.id}`, {
      status: 'suspended',
      exposure_limit: null,
    });
    assert.equal(changed.status, 'suspended');
    assert.equal(changed.exposure_limit, null);
    const read = await admin<Holder>(t.app, 'GET', `/admin/holders/${created.id}`);
    assert.equal(read.books?.held, '0');
    assert.deepEqual(read.requisites, []);
  });

  it('refuses bad holder fields and unknown holders', async () => {
    expectError(
      await adminRaw(t.app, 'POST', '/admin/holders', { name: 'x', commission_percent: '101' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await adminRaw(t.app, 'POST', '/admin/holders', { name: 'x', exposure_limit: '-1' }),
      400,
      'INVALID_AMOUNT',
    );
    expectError(await adminRaw(t.app, 'POST', '/admin/holders', { name: '   ' }), 400, 'VALIDATION_ERROR');
    expectError(
      await adminRaw(t.app, 'GET', '/admin/holders/00000000-0000-4000-8000-000000000000'),
      404,
      'NOT_FOUND',
    );
    expectError(await adminRaw(t.app, 'GET', '/admin/holders/not-a-uuid'), 404, 'NOT_FOUND');
    const holder = await newHolder();
    expectError(
      await adminRaw(t.app, 'PUT', `/admin/holders/${holder.id}/requisites`, {
        requisite_ids: ['00000000-0000-4000-8000-000000000000'],
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('moves a requisite between holders: it belongs to one at a time', async () => {
    const [a, b] = [await newHolder(), await newHolder()];
    const requisite = await addRequisite(t.app);
    await admin(t.app, 'PUT', `/admin/holders/${a.id}/requisites`, { requisite_ids: [requisite.id] });
    // Another holder's requisite moves when asked to (docs/decisions.md "Assigning requisites and
    // phones to holders").
    await admin(t.app, 'PUT', `/admin/holders/${b.id}/requisites`, {
      requisite_ids: [requisite.id],
      move: true,
    });
    const [ra, rb] = [
      await admin<Holder>(t.app, 'GET', `/admin/holders/${a.id}`),
      await admin<Holder>(t.app, 'GET', `/admin/holders/${b.id}`),
    ];
    assert.deepEqual(ra.requisites, []);
    assert.deepEqual(
      rb.requisites?.map((r) => r.id),
      [requisite.id],
    );
  });

  it('a confirmed pay-in on a holder’s requisite is what they hold; a settlement reduces it', async () => {
    const { holder, received } = await holderWithPayin(15_017, '2.5');
    let read = await admin<Holder>(t.app, 'GET', `/admin/holders/${holder.id}`);
    assert.equal(read.books?.received, received);
    assert.equal(read.books?.held, received);
    assert.equal(read.books?.commission, money(received).times('0.025').toDecimalPlaces(2).toFixed());
    const settled = await admin<{ books: Books; method: string }>(
      t.app,
      'POST',
      `/admin/holders/${holder.id}/settlements`,
      {
        amount: '5000.25',
        method: 'bank_transfer',
        reference: 'synthetic transfer 1',
      },
    );
    assert.equal(settled.method, 'bank_transfer');
    assert.equal(settled.books.settled, '5000.25');
    assert.equal(settled.books.held, money(received).minus('5000.25').toFixed());
    read = await admin<Holder>(t.app, 'GET', `/admin/holders/${holder.id}`);
    assert.deepEqual(
      read.settlements?.map((s) => [s.kind, s.amount]),
      [['settlement', '5000.25']],
    );
  });

  it('refuses a settlement above what is held, negative or non-numeric, and writes nothing', async () => {
    const { holder, received } = await holderWithPayin(12_013);
    const url = `/admin/holders/${holder.id}/settlements`;
    const body = { method: 'cash', reference: 'synthetic' };
    expectError(
      await adminRaw(t.app, 'POST', url, { ...body, amount: money(received).plus('0.01').toFixed() }),
      409,
      'SETTLEMENT_EXCEEDS_HELD',
    );
    expectError(await adminRaw(t.app, 'POST', url, { ...body, amount: -5 }), 400, 'INVALID_AMOUNT');
    expectError(await adminRaw(t.app, 'POST', url, { ...body, amount: 'lots' }), 400, 'INVALID_AMOUNT');
    expectError(await adminRaw(t.app, 'POST', url, { ...body, amount: '1.001' }), 400, 'INVALID_AMOUNT');
    expectError(
      await adminRaw(t.app, 'POST', url, { amount: 10, method: 'usdt', reference: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    const read = await admin<Holder>(t.app, 'GET', `/admin/holders/${holder.id}`);
    assert.equal(read.books?.settled, '0');
    assert.deepEqual(read.settlements, []);
    // Exactly what is held passes, with the USDT transfer's hash.
    await admin(t.app, 'POST', url, {
      amount: received,
      method: 'usdt',
      reference: 'synthetic',
      tx_hash: '0xabc',
    });
    assert.equal((await admin<Holder>(t.app, 'GET', `/admin/holders/${holder.id}`)).books?.held, '0');
  });

  it('an admin corrects with a reason; a correction may take held below zero only by an admin', async () => {
    const holder = await newHolder();
    const corrected = await admin<{ books: Books; reason: string }>(
      t.app,
      'POST',
      `/admin/holders/${holder.id}/corrections`,
      {
        amount: '-120.50',
        reason: 'synthetic: cash counted short',
      },
    );
    assert.equal(corrected.reason, 'synthetic: cash counted short');
    assert.equal(corrected.books.corrections, '-120.5');
    assert.equal(corrected.books.held, '-120.5');
    expectError(
      await adminRaw(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, { amount: 0, reason: 'x' }),
      400,
      'INVALID_AMOUNT',
    );
    expectError(
      await adminRaw(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, { amount: 5 }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('roles: a viewer reads but cannot create or settle; support cannot correct; admin-role operators can', async () => {
    const { holder, received } = await holderWithPayin(10_009);
    assert.equal((await as('viewer', 'GET', `/admin/holders/${holder.id}`)).statusCode, 200);
    expectError(await as('viewer', 'POST', '/admin/holders', { name: 'x' }), 403, 'FORBIDDEN');
    const settle = { amount: 100, method: 'cash', reference: 'synthetic' };
    expectError(
      await as('viewer', 'POST', `/admin/holders/${holder.id}/settlements`, settle),
      403,
      'FORBIDDEN',
    );
    expectError(await as('support', 'GET', `/admin/holders/${holder.id}`), 403, 'FORBIDDEN');
    const correction = { amount: 1, reason: 'synthetic' };
    expectError(
      await as('support', 'POST', `/admin/holders/${holder.id}/corrections`, correction),
      403,
      'FORBIDDEN',
    );
    expectError(
      await as('payouts', 'POST', `/admin/holders/${holder.id}/corrections`, correction),
      403,
      'FORBIDDEN',
    );
    assert.equal(
      (await as('admin', 'POST', `/admin/holders/${holder.id}/corrections`, correction)).statusCode,
      200,
    );
    assert.equal(
      (await as('admin', 'POST', `/admin/holders/${holder.id}/settlements`, settle)).statusCode,
      200,
    );
    const read = await admin<Holder>(t.app, 'GET', `/admin/holders/${holder.id}`);
    assert.equal(
      read.books?.held,
      money(received).minus(99).toFixed(),
      'received − 100 settled + 1 corrected',
    );
    const unauthenticated = await t.app.inject({ method: 'GET', url: '/admin/holders' });
    assert.equal(unauthenticated.statusCode, 401);
  });

  it('the statement has the opening, each entry with its running balance, and the closing', async () => {
    const { holder, received, orderId } = await holderWithPayin(20_011);
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/settlements`, {
      amount: 7000,
      method: 'cash',
      reference: 'synthetic',
    });
    const st = await admin<{
      opening: string;
      closing: string;
      entries: { kind: string; amount: string; balance: string; order_id: string | null }[];
    }>(t.app, 'GET', `/admin/holders/${holder.id}/statement`);
    assert.equal(st.opening, '0');
    const receipts = st.entries.filter((e) => e.kind === 'holder_receipt');
    assert.ok(receipts.some((e) => e.order_id === orderId));
    assert.equal(receipts.reduce((sum, e) => sum.plus(e.amount), money(0)).toFixed(), received);
    assert.deepEqual(st.entries.map((e) => [e.kind, e.amount]).at(-1), ['holder_settlement', '-7000']);
    let running = money(st.opening);
    for (const e of st.entries) {
      running = running.plus(e.amount);
      assert.equal(e.balance, running.toFixed(), 'each line carries the running balance');
    }
    const closing = money(received).minus(7000).toFixed();
    assert.equal(st.closing, closing);
    const future = await admin<{ opening: string; entries: unknown[]; closing: string }>(
      t.app,
      'GET',
      `/admin/holders/${holder.id}/statement?from=2999-01-01&to=2999-02-01`,
    );
    assert.deepEqual([future.opening, future.entries.length, future.closing], [closing, 0, closing]);
    expectError(
      await adminRaw(t.app, 'GET', `/admin/holders/${holder.id}/statement?from=yesterday`),
      400,
      'VALIDATION_ERROR',
    );
  });
  it('the statement as CSV: an opening row, then the entries; a reason typed as a formula stays text', async () => {
    const { holder, received } = await holderWithPayin(20_011);
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/settlements`, {
      amount: 1000,
      method: 'cash',
      reference: 'synthetic',
    });
    // A reason typed like a formula is written as text (a leading quote: OWASP CSV injection).
    await admin(t.app, 'POST', `/admin/holders/${holder.id}/corrections`, { amount: '-1', reason: '=1+2' });
    const res = await adminRaw(t.app, 'GET', `/admin/holders/${holder.id}/statement.csv`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    const lines = res.body.trim().split('\n');
    assert.equal(lines[0], 'id,created_at,kind,order_id,memo,amount,balance');
    assert.match(lines[1] ?? '', /,opening_balance,,,,0$/);
    assert.ok(lines.some((l) => l.includes(`holder_receipt`) && l.endsWith(`,${received},${received}`)));
    const [settled, corrected] = lines.slice(-2);
    assert.ok(settled?.endsWith(`,cash: synthetic,-1000,${money(received).minus(1000).toFixed()}`), settled);
    assert.ok(corrected?.includes(",holder_correction,,'=1+2,-1,"), corrected);
    expectError(
      await adminRaw(t.app, 'GET', '/admin/holders/00000000-0000-4000-8000-000000000000/statement.csv'),
      404,
      'NOT_FOUND',
    );
  });
});
