import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSigner } from '../signer.ts';
import { makeAssistants } from '../testing/calls.fixtures.ts';
import { statementCounter } from '../testing/statements.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { createAssistantsService } from './assistants.service.ts';

describe('GET /assistants reads a page in one round trip', () => {
  let t: TestApp;
  let customerId: string;
  const counter = statementCounter();
  let service: ReturnType<typeof createAssistantsService>;
  before(async () => {
    t = await startTestApp();
    customerId = (await newCustomer(t)).customerId;
    await makeAssistants(t, customerId, 5);
    service = createAssistantsService({
      db: t.db.withPlugin(counter.plugin),
      clock: t.clock,
      signer: createSigner('round-trips-secret-0123456789abcdef'),
    });
  });
  after(() => t.close());

  it('by offset and by cursor: one statement, with the total and the offset', async () => {
    const first = await service.listAssistants(customerId, { limit: 2 });
    assert.equal(counter.take(), 1);
    assert.deepEqual(first.pagination, { limit: 2, offset: 0, total: 5 });
    assert.ok(first.next_cursor);
    const second = await service.listAssistants(customerId, { limit: 2, cursor: first.next_cursor });
    assert.equal(counter.take(), 1);
    assert.deepEqual(second.pagination, { limit: 2, offset: 2, total: 5 });
    assert.equal(second.data.length, 2);
  });

  it('past the end there is no row to carry the counts: they are read apart', async () => {
    const beyond = await service.listAssistants(customerId, { limit: 2, offset: 10 });
    assert.equal(counter.take(), 2);
    assert.deepEqual(beyond, { data: [], pagination: { limit: 2, offset: 10, total: 5 }, next_cursor: null });
  });
});
