import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCalls } from '../calls/calls.repository.ts';
import type { NewCall } from '../db/tables/calls.table.ts';
import { newUuid } from '../ids.ts';
import { expectedOrder, makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { type DashboardClient, signedIn } from '../testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';

// Not one of the simulator's test numbers (55501xx), which made-up calls may use.
const ME = '+14155559177';
const idsOf = (text: string): string[] =>
  [...text.matchAll(/<th scope="row"><a href="\/dashboard\/calls\/([0-9a-f-]{36})">/g)].map(
    (m) => m[1] ?? '',
  );
const linkOf = (text: string, rel: 'next' | 'prev'): string =>
  (new RegExp(`<a class="button" rel="${rel}" href="([^"]+)"`).exec(text)?.[1] ?? '').replaceAll(
    '&amp;',
    '&',
  );
const fieldValue = (text: string, id: string): string | undefined =>
  new RegExp(`<input id="${id}" name="${id}"[^>]* value="([^"]*)"`).exec(text)?.[1];

/** The calls page's search filters (issue 39), through the real HTTPS app, as a browser without JavaScript uses it. */
describe('dashboard calls: search filters', () => {
  let t: TestApp;
  let client: DashboardClient;
  let rows: NewCall[];

  /** Calls of which 14 are from ME with metadata plan:gold, half of those without a transcript. */
  async function plant(customerId: string): Promise<NewCall[]> {
    const [a] = await makeAssistants(t, customerId, 1);
    assert.ok(a);
    const base = await makeCalls(t, customerId, [a], 20);
    const [first] = base;
    assert.ok(first);
    const mine = Array.from(
      { length: 14 },
      (_, i): NewCall => ({
        ...first,
        id: newUuid(),
        started_at: new Date(t.clock.now().getTime() - (i + 1) * 60_000),
        direction: 'outbound',
        api_initiated: true,
        from_number: ME,
        external_id: 'crm-7',
        metadata: JSON.stringify({ plan: 'gold', 'a,b': 'c' }),
        has_transcript: i % 2 === 0,
        updated_at: new Date(t.clock.now().getTime() - i * 3_600_000),
      }),
    );
    await insertCalls(t.db, mine);
    return [...base, ...mine];
  }

  before(async () => {
    t = await startTestApp();
    const c = await newCustomer(t);
    ({ client } = await signedIn(t, c.customerId));
    rows = await plant(c.customerId);
    // Another customer with the same values: never shown.
    await plant((await newCustomer(t)).customerId);
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('has a field for every search filter, each showing its value back', async () => {
    const query =
      'from_number=%2B14155559177&to_number=%2B14155550123&external_id=crm-42&metadata=plan%3Agold' +
      '&disconnect_reason=caller_hangup&duration_min=10&duration_max=600&cost_min=0.01&cost_max=5' +
      '&has_transcript=false&updated_since=2026-01-01T10%3A30';
    const page = await client.get(`/dashboard/calls?${query}`);
    assert.equal(page.status, 200, page.text.slice(0, 500));
    for (const [label, id, value] of [
      ['From number', 'from_number', ME],
      ['To number', 'to_number', '+14155550123'],
      ['External ID', 'external_id', 'crm-42'],
      ['Metadata', 'metadata', 'plan:gold'],
      ['Disconnect reason', 'disconnect_reason', 'caller_hangup'],
      ['Duration at least', 'duration_min', '10'],
      ['Duration at most', 'duration_max', '600'],
      ['Cost at least', 'cost_min', '0.01'],
      ['Cost at most', 'cost_max', '5'],
      ['Changed since', 'updated_since', '2026-01-01T10:30'],
    ]) {
      assert.match(page.text, new RegExp(`<label for="${id}">${label}`), label);
      assert.equal(fieldValue(page.text, id ?? ''), value, id);
    }
    assert.match(page.text, /<option value="false" selected>Without<\/option>/);
  });

  it('lists only the matching calls of the signed-in customer, and the page links keep every filter', async () => {
    const matching = expectedOrder(
      rows.filter((r) => r.from_number === ME && r.has_transcript === true && typeof r.metadata === 'string'),
    );
    assert.equal(matching.length, 7);
    const query = `from_number=%2B14155559177&metadata=${encodeURIComponent('a\\,b:c,plan:gold')}&has_transcript=true`;
    const first = await client.get(`/dashboard/calls?${query}&limit=10`);
    assert.equal(first.status, 200);
    assert.deepEqual(idsOf(first.text), matching);

    const byNumber = await client.get('/dashboard/calls?from_number=%2B14155559177&limit=10');
    assert.deepEqual(
      idsOf(byNumber.text),
      expectedOrder(rows.filter((r) => r.from_number === ME)).slice(0, 10),
    );
    const next = linkOf(byNumber.text, 'next');
    const params = new URL(next, 'https://x').searchParams;
    assert.equal(params.get('from_number'), ME);
    assert.equal(params.get('page'), '1');
    const second = await client.get(next);
    assert.deepEqual(idsOf(second.text), expectedOrder(rows.filter((r) => r.from_number === ME)).slice(10));
    const prev = new URL(linkOf(second.text, 'prev'), 'https://x').searchParams;
    assert.equal(prev.get('from_number'), ME);

    // Every filter is kept in the links, the times in UTC.
    const [one] = rows.filter((r) => r.external_id === 'crm-7');
    assert.ok(one);
    const every: Record<string, string> = {
      from_number: ME,
      to_number: one.to_number,
      external_id: 'crm-7',
      metadata: 'plan:gold',
      disconnect_reason: one.disconnect_reason ?? '',
      duration_min: '0',
      duration_max: '100000',
      cost_min: '0',
      cost_max: '100',
      has_transcript: 'true',
      updated_since: '2000-01-01T00:00',
      limit: '5',
    };
    const all = await client.get(`/dashboard/calls?${new URLSearchParams(every)}`);
    assert.equal(all.status, 200);
    assert.equal(idsOf(all.text).length, 5);
    const kept = new URL(linkOf(all.text, 'next'), 'https://x').searchParams;
    assert.deepEqual(Object.fromEntries(kept), {
      ...every,
      updated_since: '2000-01-01T00:00:00Z',
      page: '1',
    });
    const last = await client.get(`/dashboard/calls?${kept}`);
    assert.equal(idsOf(last.text).length, 2);
  });

  it('changed since: the calls updated at or after the UTC time', async () => {
    const since = new Date(t.clock.now().getTime() - 3 * 3_600_000);
    const local = since.toISOString().slice(0, 16);
    const page = await client.get(`/dashboard/calls?from_number=%2B14155559177&updated_since=${local}`);
    assert.equal(page.status, 200);
    const floor = new Date(`${local}:00Z`).getTime();
    assert.deepEqual(
      idsOf(page.text),
      expectedOrder(
        rows.filter((r) => r.from_number === ME && new Date(r.updated_at as Date).getTime() >= floor),
      ),
    );
  });

  it('answers 422 naming each invalid filter, text the database cannot keep included', async () => {
    const bad = await client.get(
      '/dashboard/calls?from_number=123&cost_min=abc&has_transcript=maybe&metadata=a%3Ab%00c&duration_min=9&duration_max=1',
    );
    assert.equal(bad.status, 422);
    for (const field of ['from_number', 'cost_min', 'has_transcript', 'metadata', 'duration_min'])
      assert.match(bad.text, new RegExp(`${field}: `), field);
    assert.match(bad.text, /metadata: must not contain the NUL character/);
    assert.equal(fieldValue(bad.text, 'from_number'), '123', 'shown back');
  });
});
