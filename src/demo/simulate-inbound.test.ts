import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newAssistant } from '../testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { simulateInboundCalls } from './simulate-inbound.ts';

describe('simulated inbound calls (CLI)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('records finished, post-processed inbound calls with transcripts, spread over the recent past', async () => {
    const c = await newCustomer(t);
    const a = await newAssistant(t, c.customerId, { phoneNumbers: ['+14155550103'] });
    t.clock.advance(1000); // assistants take calls in the order they were created
    const b = await newAssistant(t, c.customerId, { phoneNumbers: ['+14165550104'], language: 'fr-CA' });
    await newAssistant(t, c.customerId, { isActive: false });
    const now = t.clock.now();
    const made = await simulateInboundCalls(t.db, { customerId: c.customerId, count: 4, now });
    assert.equal(made.length, 4);
    assert.deepEqual(
      made.map((m) => m.assistant_id),
      [a.id, b.id, a.id, b.id],
      'active assistants with a number, in turn',
    );
    const ids = made.map((m) => m.id);
    const rows = await t.db.selectFrom('calls').selectAll().where('id', 'in', ids).execute();
    for (const row of rows) {
      assert.equal(row.direction, 'inbound');
      assert.ok(row.ended_at && row.ended_at < now);
      assert.notEqual(row.cost_usd, null, 'post-processed');
    }
    const completed = rows.filter((r) => r.status === 'completed').map((r) => r.id);
    const events = await t.db
      .selectFrom('events')
      .select(['call_id', 'type'])
      .where('call_id', 'in', ids)
      .execute();
    assert.equal(events.filter((e) => e.type === 'call.completed').length, 4);
    const transcripts = await t.db
      .selectFrom('transcripts')
      .select('call_id')
      .where('call_id', 'in', ids)
      .execute();
    assert.deepEqual(transcripts.map((x) => x.call_id).sort(), completed.sort());
    for (const id of completed.filter((id) => made.find((m) => m.id === id)?.assistant_id === b.id)) {
      const french = await t.services.transcripts.fetchAndStore(c.customerId, id);
      assert.ok(french.state === 'stored');
      assert.match(
        french.transcript.rest.full_text,
        /Merci de votre appel/,
        'the fr-CA assistant speaks French',
      );
    }
  });

  it('refuses a count out of range and an assistant that cannot take calls', async () => {
    const c = await newCustomer(t);
    const inactive = await newAssistant(t, c.customerId, { isActive: false });
    await assert.rejects(
      simulateInboundCalls(t.db, { customerId: c.customerId, count: 0, now: t.clock.now() }),
      {
        code: 'input.invalid',
      },
    );
    await assert.rejects(
      simulateInboundCalls(t.db, {
        customerId: c.customerId,
        assistantId: inactive.id,
        count: 1,
        now: t.clock.now(),
      }),
      { code: 'resource.not_found' },
    );
  });
});
