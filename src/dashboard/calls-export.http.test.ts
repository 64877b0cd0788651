import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { dashboardClient, signedIn } from '../testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

/** The calls page's download: the export of the list's filters, for the signed-in customer only. */
describe('dashboard: download the calls as CSV', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('downloads the filtered list as CSV, never another customer’s calls; bad filters go back to the list', async () => {
    const c = await newCustomer(t);
    const other = await newCustomer(t);
    const rows = await makeCalls(t, c.customerId, await makeAssistants(t, c.customerId), 40);
    const theirs = await makeCalls(t, other.customerId, await makeAssistants(t, other.customerId), 20);
    const { client } = await signedIn(t, c.customerId);
    const res = await client.get('/dashboard/calls/export?direction=inbound');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="calls-.*\.csv"/);
    const records = parse(res.text, { columns: true }) as Record<string, string>[];
    const inbound = rows.filter((r) => r.direction === 'inbound').map((r) => r.id);
    assert.deepEqual(new Set(records.map((r) => r.id)), new Set(inbound));
    const theirIds = new Set(theirs.map((r) => r.id));
    const all = parse((await client.get('/dashboard/calls/export')).text, { columns: true }) as {
      id: string;
    }[];
    assert.equal(all.length, 40);
    assert.ok(all.every((r) => !theirIds.has(r.id)));
    const page = await client.get('/dashboard/calls?direction=inbound');
    assert.match(
      page.text,
      /href="\/dashboard\/calls\/export\?direction=inbound" download>Download CSV<\/a>/,
    );
    const bad = await client.get('/dashboard/calls/export?status=lost');
    assert.equal(bad.status, 303);
    assert.equal(String(bad.headers.location), '/dashboard/calls?status=lost');
  });

  it('is for signed-in users only', async () => {
    const res = await dashboardClient(t).get('/dashboard/calls/export');
    assert.equal(res.status, 303);
    assert.match(String(res.headers.location), /\/dashboard\/login/);
  });
});
