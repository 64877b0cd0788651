import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { startTestApp, type TestApp } from '../../testing/test-app.ts';
import { subscribedEvent } from '../../testing/webhook.fixtures.ts';
import { up } from './20261126_0120_refused_target_errors.ts';

const NAMED = 'Target address 10.1.2.3 is not allowed for webhooks';
const GENERIC =
  "the target's host resolved to a private or reserved address, which is not allowed for webhooks";

describe('migration 20261126_0120: refused targets in the logs kept from before', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('rewrites the errors that named the address, and no other error', async () => {
    const { customer, subscriptionId, callId, event } = await subscribedEvent(
      t,
      'https://hooks.example.com/x',
    );
    const delivery = await t.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: NAMED })
      .where('event_id', '=', event.id)
      .returning('id')
      .executeTakeFirstOrThrow();
    const attempt = (at: number, error: string) => ({
      delivery_id: delivery.id,
      subscription_id: subscriptionId,
      attempted_at: new Date(at),
      status_code: null,
      latency_ms: 0,
      error,
    });
    const kept = ['ECONNREFUSED: connect ECONNREFUSED 93.184.216.34:443', 'HTTP 503', 'timeout'];
    await t.db
      .insertInto('webhook_attempts')
      .values([attempt(1, NAMED), ...kept.map((error, i) => attempt(i + 2, error))])
      .execute();
    const callback = randomUUID();
    await t.db
      .insertInto('callback_notifications')
      .values({
        id: callback,
        customer_id: customer.customerId,
        call_id: callId,
        sequence: 1,
        event: 'call.completed',
        url: 'https://hooks.example.com/cb',
        body: '{}',
        state: 'failed',
        next_attempt_at: new Date(0),
        last_error: 'Target address fd00:ec2::254 is not allowed for webhooks',
        created_at: new Date(0),
      })
      .execute();

    await up(t.db as unknown as Kysely<unknown>);

    const attempts = await t.db
      .selectFrom('webhook_attempts')
      .select('error')
      .where('delivery_id', '=', delivery.id)
      .orderBy('attempted_at')
      .execute();
    assert.deepEqual(
      attempts.map((a) => a.error),
      [GENERIC, ...kept],
    );
    const { last_error } = await t.db
      .selectFrom('webhook_deliveries')
      .select('last_error')
      .where('id', '=', delivery.id)
      .executeTakeFirstOrThrow();
    assert.equal(last_error, GENERIC);
    const notification = await t.db
      .selectFrom('callback_notifications')
      .select('last_error')
      .where('id', '=', callback)
      .executeTakeFirstOrThrow();
    assert.equal(notification.last_error, GENERIC);
  });
});
