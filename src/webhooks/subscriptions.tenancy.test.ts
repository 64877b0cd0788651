import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { update, updateAsOperator } from './subscriptions.repository.ts';

describe('webhook subscription changes are scoped to their customer', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  /** Customer A with one subscription, and customer B. */
  async function twoCustomers() {
    const a = await newCustomer(t);
    const b = await newCustomer(t);
    const { subscription } = await t.services.subscriptions.subscribe(a.customerId, {
      url: `https://example.com/hooks/${a.customerId}`,
      events: ['call.completed'],
      description: 'original',
    });
    const row = () =>
      t.db
        .selectFrom('webhook_subscriptions')
        .selectAll()
        .where('id', '=', subscription.id)
        .executeTakeFirstOrThrow();
    return { a, b, subId: subscription.id, row };
  }

  it('update: with the owner it changes the subscription; with another customer, or none, it changes nothing', async () => {
    const { a, b, subId, row } = await twoCustomers();
    const before = await row();
    assert.equal(
      await update(t.db, b.customerId, subId, { description: 'stolen', is_active: false }),
      undefined,
    );
    assert.deepEqual(await row(), before);
    // An empty customer id is not "any customer": it matches nothing (the database refuses it as a uuid).
    await update(t.db, '', subId, { description: 'stolen' }).catch(() => undefined);
    assert.deepEqual(await row(), before);
    const mine = await update(t.db, a.customerId, subId, { description: 'changed' });
    assert.equal(mine?.description, 'changed');
  });

  it('setActive: another customer gets 404 and the subscription stays as it was; the owner can switch it', async () => {
    const { a, b, subId, row } = await twoCustomers();
    await assert.rejects(t.services.subscriptions.setActive(b.customerId, subId, false), {
      code: 'resource.not_found',
    });
    assert.equal((await row()).is_active, true);
    await assert.rejects(t.services.subscriptions.deliveryLog(b.customerId, subId), {
      code: 'resource.not_found',
    });
    assert.equal((await t.services.subscriptions.setActive(a.customerId, subId, false)).is_active, false);
  });

  it('the operator functions (CLI) reach any customer’s subscription, and only a live one', async () => {
    const { a, subId, row } = await twoCustomers();
    assert.equal(
      (await updateAsOperator(t.db, subId, { description: 'by the operator' }))?.description,
      'by the operator',
    );
    assert.equal((await t.services.operator.subscriptions.setActive(subId, false)).is_active, false);
    assert.deepEqual(await t.services.operator.subscriptions.deliveryLog(subId), []);
    await t.services.subscriptions.unsubscribe(a.customerId, subId);
    assert.equal(await updateAsOperator(t.db, subId, { description: 'too late' }), undefined);
    assert.equal((await row()).description, 'by the operator');
    await assert.rejects(t.services.operator.subscriptions.setActive(subId, true), {
      code: 'resource.not_found',
    });
  });
});
