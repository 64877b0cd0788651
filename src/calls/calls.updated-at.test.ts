import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { advance, BUSY, type Caller, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../testing/test-app.ts';
import { findCall } from './lifecycle.repository.ts';

/** `updated_at` moves, to the injected clock's instant, with every change a client can see; `updated_since` finds it. */
describe('updated_at and updated_since', () => {
  let t: TestApp;
  let c: Caller;
  before(async () => {
    t = await startTestApp();
    c = await newCaller(t);
  });
  after(() => t.close());

  const call = async (id: string) => (await t.request('GET', `/api/v1/calls/${id}`, { key: c.key })).body;
  const changedSince = async (at: Date) => {
    const res = await t.request('GET', `/api/v1/calls?updated_since=${at.toISOString()}`, { key: c.key });
    assert.equal(res.status, 200, res.text);
    return res.body.data.map((x: { id: string }) => x.id);
  };

  it('moves with each status, then with the cost, summary and insights of post-processing', async () => {
    const id = (await placeCall(t, c)).body.id;
    const placed = await call(id);
    assert.equal(placed.updated_at, t.clock.now().toISOString());
    const seen: string[] = [placed.status];
    let last = placed.updated_at;
    for (let i = 0; i < 900 && (await findCall(t.db, id))?.cost_usd === null; i++) {
      await advance(t, 1);
      const now = await call(id);
      if (now.status !== seen.at(-1)) {
        seen.push(now.status);
        assert.equal(now.updated_at, t.clock.now().toISOString(), `${now.status} moved updated_at`);
      } else if (now.updated_at !== last) {
        // Post-processing: same status, the cost and summary set.
        assert.equal(now.updated_at, t.clock.now().toISOString());
      }
      last = now.updated_at;
    }
    assert.deepEqual(seen, ['queued', 'ringing', 'in_progress', 'completed']);
    const done = await findCall(t.db, id);
    assert.ok(done?.cost_usd !== null && done?.ended_at);
    assert.ok(done.updated_at.getTime() >= done.ended_at.getTime(), 'post-processing moved it again');
    assert.equal(new Date(last).getTime(), done.updated_at.getTime());

    assert.deepEqual(await changedSince(done.updated_at), [id]);
    assert.deepEqual(await changedSince(new Date(done.updated_at.getTime() + 1)), []);
  });

  it('moves when a transcript is stored for a call that had none; storing changes nothing else', async () => {
    const id = (await placeCall(t, c)).body.id;
    for (let i = 0; i < 900 && (await findCall(t.db, id))?.cost_usd === null; i++) await advance(t, 1);
    // As if post-processing had not learnt of a transcript (provider down): the call says it has none.
    await t.db.updateTable('calls').set({ has_transcript: false }).where('id', '=', id).execute();
    await advance(t, 60);
    const before = await findCall(t.db, id);
    assert.ok(before && before.updated_at < t.clock.now());
    const got = await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key });
    assert.equal(got.status, 200, got.text);
    const after = await call(id);
    assert.equal(after.has_transcript, true);
    assert.equal(after.updated_at, t.clock.now().toISOString());
    assert.deepEqual(await changedSince(t.clock.now()), [id]);

    // Read again later: stored already, nothing changes.
    await advance(t, 60);
    assert.equal((await t.request('GET', `/api/v1/calls/${id}/transcript`, { key: c.key })).status, 200);
    assert.equal((await call(id)).updated_at, after.updated_at);
  });

  it('an unanswered call is found by updated_since once it has ended', async () => {
    const since = t.clock.now();
    const id = (await placeCall(t, c, { to_number: BUSY })).body.id;
    await advance(t, 5);
    const ended = await findCall(t.db, id);
    assert.equal(ended?.status, 'busy');
    assert.ok(ended && ended.updated_at > since);
    assert.ok((await changedSince(since)).includes(id));
  });
});
