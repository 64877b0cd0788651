import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { EXPORT_BATCH } from '../calls/index.ts';
import { SCOPES } from '../keys/scopes.ts';
import { expectedOrder, makeAssistants, makeCalls } from '../testing/calls.fixtures.ts';
import { assertProblem } from '../testing/outbound.fixtures.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { safeText } from './export-rows.ts';

/** GET /calls/export through the real HTTPS app: the list's filters, CSV and NDJSON, tenancy, streaming. */
describe('GET /calls/export', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function customerWithCalls(count: number) {
    const c = await newCustomer(t);
    const assistants = await makeAssistants(t, c.customerId);
    const rows = await makeCalls(t, c.customerId, assistants, count);
    return { c, assistants, rows };
  }

  it('streams every call as CSV, newest first, with the header and the detail fields, past a batch', async () => {
    const { c, rows } = await customerWithCalls(EXPORT_BATCH + 37);
    const res = await t.request('GET', '/api/v1/calls/export', { key: c.key });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(
      res.headers['content-disposition'] ?? '',
      /^attachment; filename="calls-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const records = parse(res.text, { columns: true }) as Record<string, string>[];
    assert.deepEqual(
      records.map((r) => r.id),
      expectedOrder(rows),
    );
    const detail = await t.request('GET', `/api/v1/calls/${rows[0]?.id}`, { key: c.key });
    const exported = records.find((r) => r.id === rows[0]?.id);
    for (const [field, value] of Object.entries(detail.body)) {
      const expected =
        value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
      assert.equal(exported?.[field], safeText(expected), field);
    }
  });

  it('NDJSON by format or Accept: each line is the detail shape of GET /calls/{id}', async () => {
    const { c, rows } = await customerWithCalls(5);
    for (const ask of [{ path: '?format=ndjson' }, { path: '', accept: 'application/x-ndjson' }]) {
      const res = await t.request('GET', `/api/v1/calls/export${ask.path}`, {
        key: c.key,
        ...(ask.accept ? { headers: { accept: ask.accept } } : {}),
      });
      assert.equal(res.headers['content-type'], 'application/x-ndjson; charset=utf-8');
      const lines = res.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(lines.length, 5);
      const detail = await t.request('GET', `/api/v1/calls/${lines[0].id}`, { key: c.key });
      assert.deepEqual(lines[0], detail.body);
    }
    assert.ok(rows.length === 5);
  });

  it("takes the list's filters (validated the same way) and never another customer's calls", async () => {
    const { c, assistants } = await customerWithCalls(60);
    const other = await customerWithCalls(40);
    const [first] = assistants;
    const filtered = await t.request(
      'GET',
      `/api/v1/calls/export?format=ndjson&assistant_id=${first?.id}&direction=inbound&status=completed`,
      { key: c.key },
    );
    const list = await t.request(
      'GET',
      `/api/v1/calls?assistant_id=${first?.id}&direction=inbound&status=completed&limit=100`,
      { key: c.key },
    );
    const ids = filtered.text
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id);
    assert.deepEqual(
      ids,
      list.body.data.map((x: { id: string }) => x.id),
    );
    const theirs = await t.request(
      'GET',
      `/api/v1/calls/export?format=ndjson&assistant_id=${other.assistants[0]?.id}`,
      {
        key: c.key,
      },
    );
    assert.equal(theirs.text, '', "another customer's assistant filters to nothing");
    const all = await t.request('GET', '/api/v1/calls/export?format=ndjson', { key: c.key });
    const otherIds = new Set(other.rows.map((r) => r.id));
    assert.ok(
      all.text
        .split('\n')
        .filter(Boolean)
        .every((l) => !otherIds.has(JSON.parse(l).id)),
    );
    for (const bad of [
      'format=xml',
      'include=recording',
      'limit=10',
      'cursor=abc',
      'status=lost',
      'assistant_id=1',
    ]) {
      assertProblem(
        await t.request('GET', `/api/v1/calls/export?${bad}`, { key: c.key }),
        422,
        'input.invalid',
      );
    }
  });

  it('adds the transcript and insights columns when asked; an empty export is the header alone', async () => {
    const c = await newCustomer(t);
    const empty = await t.request('GET', '/api/v1/calls/export?include=transcript,insights', { key: c.key });
    assert.equal(empty.text.split('\r\n')[0]?.endsWith(',transcript,insights'), true);
    assert.equal(empty.text.trimEnd().split('\r\n').length, 1);
  });

  it('needs read_calls', async () => {
    const c = await newCustomer(t, { scopes: SCOPES.filter((s) => s !== 'read_calls') });
    assertProblem(await t.request('GET', '/api/v1/calls/export', { key: c.key }), 403, 'perm.denied');
  });

  it('keeps text a spreadsheet would run as a formula as text (both directions)', () => {
    const cases: [string, string][] = [
      ['=HYPERLINK("http://x")', `'=HYPERLINK("http://x")`],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['+1+cmd', "'+1+cmd"],
      ['-2+3', "'-2+3"],
      ['\tx', "'\tx"],
      ['+14155550123', '+14155550123'],
      ['-12.5', '-12.5'],
      ['Dr. Patel', 'Dr. Patel'],
      ['a=b', 'a=b'],
    ];
    for (const [text, written] of cases) assert.equal(safeText(text), written, text);
  });

  it('stops reading when the client goes away', async () => {
    const batches = 20;
    const { c } = await customerWithCalls(batches * EXPORT_BATCH);
    // Counts the chunks the route pulls from the stream (the header, then one per batch read).
    const service = t.services.callExport;
    const original = service.stream;
    let pulled = 0;
    service.stream = async function* (...args) {
      for await (const chunk of original(...args)) {
        pulled += 1;
        yield chunk;
      }
    };
    try {
      await new Promise<void>((resolve, reject) => {
        const req = https.get(
          `${t.url}/api/v1/calls/export?format=ndjson`,
          { headers: { authorization: `Bearer ${c.key}` }, ca: t.cert },
          (res) => {
            res.once('data', () => {
              req.destroy();
              setTimeout(resolve, 1000);
            });
          },
        );
        req.on('error', (e) => (/aborted|hang up/.test(e.message) ? undefined : reject(e)));
      });
      assert.ok(pulled > 0, 'the export started');
      assert.ok(pulled < batches, `${pulled} of ${batches} batches read after the client left`);
    } finally {
      service.stream = original;
    }
  });
});
