import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ANSWERS,
  advance,
  type Caller,
  NO_ANSWER,
  newCaller,
  placeCall,
} from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { eventTypesOf } from '../testing/webhook.fixtures.ts';
import { findCall } from './lifecycle.repository.ts';
import { PLACEMENT_LOST, PROVIDER_LOST, UNPLACED_AFTER_SECONDS } from './reconcile.ts';

describe('reconciliation with the provider (calls that have not ended)', () => {
  let t: TestApp;
  let c: Caller;
  before(async () => {
    t = await startTestApp();
    c = await newCaller(t);
  });
  after(() => t.close());

  const status = async (id: string) => (await findCall(t.db, id))?.status;
  const eventTypes = (callId: string) => eventTypesOf(t, callId);
  const place = async (to = ANSWERS): Promise<string> => {
    const res = await placeCall(t, c, { to_number: to });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  };
  /** One round as the driver runs it: reconcile, then the post-processing it made due. */
  const reconcile = async () => {
    const report = await t.services.lifecycle.reconcile();
    await t.services.lifecycle.processDue(100);
    return report;
  };
  /** The provider forgets the call (its state lost, or a handle it never issued). */
  const forget = async (id: string) => {
    await t.db.deleteFrom('simulator_calls').where('call_id', '=', id).execute();
  };

  it('catches up a call that ended upstream while we were down: terminal, then call.completed', async () => {
    const id = await place();
    const plan = await t.services.simulator.inspect(id);
    assert.ok(plan);
    // Down: the clock moves past the end of the call and nothing delivers the provider's events.
    t.clock.advance((plan.script.details.durationSeconds + 60) * 1000);
    assert.equal(await status(id), 'queued');
    await reconcile();
    const call = await findCall(t.db, id);
    assert.equal(call?.status, 'completed');
    assert.equal(call?.duration_seconds, plan.script.details.durationSeconds);
    assert.deepEqual(await eventTypes(id), ['call.completed', 'call.insight.received']);
    // The same events, late and again, from the live stream and a second round: nothing changes.
    await advance(t, 1);
    await reconcile();
    assert.deepEqual(await eventTypes(id), ['call.completed', 'call.insight.received']);
  });

  it('moves a call still going on upstream as far as the provider has got, and leaves it open', async () => {
    const id = await place(NO_ANSWER);
    t.clock.advance(5_000);
    await reconcile();
    assert.equal(await status(id), 'ringing');
    assert.deepEqual(await eventTypes(id), []);
  });

  it(`ends a call the provider no longer knows: failed, ${PROVIDER_LOST}, call.completed, nothing billed`, async () => {
    const id = await place();
    await advance(t, 1);
    assert.equal(await status(id), 'ringing');
    const lastKnown = (await findCall(t.db, id))?.updated_at;
    await forget(id);
    t.clock.advance(3600_000);
    await reconcile();
    const call = await findCall(t.db, id);
    assert.equal(call?.status, 'failed');
    assert.equal(call?.disconnect_reason, PROVIDER_LOST);
    assert.equal(call?.ended_at?.getTime(), lastKnown?.getTime(), 'ends at its last known instant');
    assert.equal(call?.billable_seconds, 0);
    assert.equal(call?.cost_usd, '0.0000');
    assert.deepEqual(await eventTypes(id), ['call.completed']);
  });

  it('leaves a call for the next round when the provider errs, then catches it up', async () => {
    const id = await place();
    t.clock.advance(3600_000);
    t.services.simulator.configure({ fault: 'unavailable' });
    try {
      const report = await reconcile();
      assert.ok(report.retryLater >= 1);
      assert.equal(await status(id), 'queued', 'a provider error is not a lost call');
    } finally {
      t.services.simulator.configure({ fault: 'none' });
    }
    await reconcile();
    assert.equal(await status(id), 'completed');
    assert.deepEqual(await eventTypes(id), ['call.completed', 'call.insight.received']);
  });

  for (const [age, ends] of [
    [UNPLACED_AFTER_SECONDS - 60, false],
    [UNPLACED_AFTER_SECONDS + 60, true],
  ] as const) {
    it(`${ends ? 'ends' : 'leaves'} a call with no provider handle ${age} s after it was placed`, async () => {
      const id = await place();
      // The placing process died between our commit and the provider's answer, which never came.
      await t.db
        .updateTable('call_lifecycle')
        .set({ provider_call_id: null })
        .where('call_id', '=', id)
        .execute();
      await forget(id);
      t.clock.advance(age * 1000);
      await reconcile();
      const call = await findCall(t.db, id);
      assert.equal(call?.status, ends ? 'failed' : 'queued');
      assert.equal(call?.disconnect_reason, ends ? PLACEMENT_LOST : null);
      assert.deepEqual(await eventTypes(id), ends ? ['call.completed'] : []);
      if (!ends) {
        t.clock.advance(120_000);
        await reconcile();
        assert.equal(await status(id), 'failed', 'ended once past the bound');
      }
    });
  }

  it('is safe when several instances reconcile at once: one end, one call.completed', async () => {
    const ids = [await place(), await place()];
    await forget(ids[1] ?? '');
    t.clock.advance(3600_000);
    await Promise.all([reconcile(), reconcile(), reconcile()]);
    assert.equal(await status(ids[0] ?? ''), 'completed');
    assert.equal(await status(ids[1] ?? ''), 'failed');
    assert.deepEqual(await eventTypes(ids[0] ?? ''), ['call.completed', 'call.insight.received']);
    assert.deepEqual(await eventTypes(ids[1] ?? ''), ['call.completed']);
  });

  it('ends a round at once when the server is stopping; the next round catches the call up', async () => {
    const id = await place();
    t.clock.advance(3600_000);
    const stopping = new AbortController();
    stopping.abort();
    assert.equal((await t.services.lifecycle.reconcile(stopping.signal)).checked, 0);
    assert.equal(await status(id), 'queued');
    await reconcile();
    assert.equal(await status(id), 'completed');
  });
});
