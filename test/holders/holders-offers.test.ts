import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addRequisite, admin, createMerchant, merchantRequest } from '../helpers/merchant-client.js';

// A pool offer (docs/decisions.md section 23) takes its requisite directly, beside the claim: it
// keeps the holder's limit and status all the same (docs/decisions.md "Offers and the holder's
// room"). Synthetic holders and amounts; the requisites take no claimed order (max_amount 1).

describe('holders: a pool offer respects the holder’s room', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** An offer of `amount` on a fresh requisite of a fresh holder with `holder` fields. */
  async function offerOfHolder(amount: number, holder: Record<string, unknown>) {
    const h = await admin<{ id: string }>(t.app, 'POST', '/admin/holders', {
      name: 'Synthetic offer holder',
      ...holder,
    });
    const requisite = await addRequisite(t.app, { min_amount: '1', max_amount: '1' });
    await admin(t.app, 'PUT', `/admin/holders/${h.id}/requisites`, { requisite_ids: [requisite.id] });
    const offer = await admin<{ id: string }>(t.app, 'POST', '/admin/pool/offers', {
      requisite_id: requisite.id,
      amount,
      type: 'sim',
      ttl_seconds: 600,
    });
    return { holderId: h.id, offerId: offer.id };
  }

  const takeOffer = async (offerId: string) => {
    const merchant = await createMerchant(t.app);
    const body = {
      merchant_id: merchant.id,
      type: 'sim',
      currency: 'RUB',
      usePool: true,
      requisiteId: offerId,
    };
    return merchantRequest(t.app, merchant, '/merchant/createOrder', { body });
  };

  it('an offer past the holder’s limit is refused and stays open; within the limit it is taken', async () => {
    const tight = await offerOfHolder(6_131, { exposure_limit: '6000' });
    const refused = await takeOffer(tight.offerId);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().message, 'REQUISITES_NOT_FOUND');
    // The deposit raises the room: the same offer (still open) is taken now.
    await admin(t.app, 'PATCH', `/admin/holders/${tight.holderId}`, { security_deposit: '200' });
    const taken = await takeOffer(tight.offerId);
    assert.equal(taken.statusCode, 200, taken.body);
    assert.equal(taken.json().payment_details.amount, '6131');
  });

  it('the holder’s pending orders count: a second offer that would pass the limit is refused', async () => {
    const first = await offerOfHolder(4_133, { exposure_limit: '7000' });
    assert.equal((await takeOffer(first.offerId)).statusCode, 200);
    const requisiteOf = await admin<{ requisites: { id: string }[] }>(
      t.app,
      'GET',
      `/admin/holders/${first.holderId}`,
    );
    const second = await admin<{ id: string }>(t.app, 'POST', '/admin/pool/offers', {
      requisite_id: requisiteOf.requisites[0]?.id,
      amount: 4_133,
      type: 'sim',
      ttl_seconds: 600,
    });
    const refused = await takeOffer(second.id);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().message, 'REQUISITES_NOT_FOUND');
  });

  it('a suspended holder’s offer is refused; an unlimited active holder’s is taken', async () => {
    const suspended = await offerOfHolder(5_137, {});
    await admin(t.app, 'PATCH', `/admin/holders/${suspended.holderId}`, { status: 'suspended' });
    const refused = await takeOffer(suspended.offerId);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().message, 'REQUISITES_NOT_FOUND');
    const free = await offerOfHolder(5_139, {});
    assert.equal((await takeOffer(free.offerId)).statusCode, 200);
  });
});
