import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSigner } from '../signer.ts';
import { makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { statementCounter } from '../testing/statements.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { createCallsService } from './calls.service.ts';

describe('GET /calls reads a page in one round trip', () => {
  let t: TestApp;
  let customerId: string;
  const counter = statementCounter();
  let service: ReturnType<typeof createCallsService>;
  before(async () => {
    t = await startTestApp();
    customerId = (await newCustomer(t)).customerId;
    await makeCalls(t, customerId, await makeAssistants(t, customerId, 1), 12);
    service = createCallsService({
      db: t.db.withPlugin(counter.plugin),
      signer: createSigner('round-trips-secret-0123456789abcdef'),
    });
  });
  after(() => t.close());

  it('the first page, a cursor page and a page by number are one statement each', async () => {
    const first = await service.listCalls(customerId, { limit: 5 });
    assert.equal(counter.take(), 1);
    assert.ok(first.next_cursor);
    const byCursor = await service.listCalls(customerId, { limit: 5, cursor: first.next_cursor });
    assert.equal(counter.take(), 1);
    const byPage = await service.listCalls(customerId, { limit: 5, page: 1 });
    assert.equal(counter.take(), 1);
    assert.deepEqual(
      byPage.data.map((c) => c.id),
      byCursor.data.map((c) => c.id),
    );
    const last = await service.listCalls(customerId, { limit: 5, page: 2 });
    assert.equal(counter.take(), 1);
    assert.deepEqual([last.data.length, last.next_cursor], [2, null]);
  });

  it('a page past the end: one statement, empty, no cursor', async () => {
    assert.deepEqual(await service.listCalls(customerId, { limit: 5, page: 9 }), {
      data: [],
      next_cursor: null,
    });
    assert.equal(counter.take(), 1);
  });
});
