import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewCall } from '../db/tables/calls.table.ts';
import { newUuid } from '../ids.ts';
import { makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { insertCalls } from './calls.repository.ts';

describe('external_id and variables on GET /calls and GET /calls/{id}', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('shows external_id and variables only on API-placed outbound calls', async () => {
    const c = await newCustomer(t);
    const [a] = await makeAssistants(t, c.customerId, 1);
    assert.ok(a);
    const [base] = await makeCalls(t, c.customerId, [a], 1);
    assert.ok(base);
    const variant = (over: Partial<NewCall>): NewCall => ({ ...base, id: newUuid(), ...over });
    const placed = variant({
      direction: 'outbound',
      api_initiated: true,
      external_id: 'crm-42',
      variables: JSON.stringify({ first_name: 'Ada' }),
    });
    const placedWithout = variant({ direction: 'outbound', api_initiated: true, external_id: null });
    const dashboardOutbound = variant({ direction: 'outbound', api_initiated: false, external_id: 'leak' });
    const inbound = variant({ direction: 'inbound', api_initiated: false, external_id: 'leak' });
    await insertCalls(t.db, [placed, placedWithout, dashboardOutbound, inbound]);
    const list = await t.request('GET', '/api/v1/calls?limit=100', { key: c.key });
    const byId = new Map(list.body.data.map((x: { id: string }) => [x.id, x]));
    const pick = (id: string) => byId.get(id) as { external_id: unknown; variables: unknown };
    assert.equal(pick(placed.id).external_id, 'crm-42');
    assert.deepEqual(pick(placed.id).variables, { first_name: 'Ada' });
    for (const other of [placedWithout, dashboardOutbound, inbound]) {
      assert.equal(pick(other.id).external_id, null);
      assert.equal(pick(other.id).variables, null);
    }
    const detail = await t.request('GET', `/api/v1/calls/${placed.id}`, { key: c.key });
    assert.equal(detail.body.external_id, 'crm-42');
    const inboundDetail = await t.request('GET', `/api/v1/calls/${inbound.id}`, { key: c.key });
    assert.equal(inboundDetail.body.external_id, null);
  });
});
