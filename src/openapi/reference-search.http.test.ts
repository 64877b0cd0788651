import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../testing/test-app.ts';

/** The CSP of /docs before search and examples came: they must not need it loosened. */
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The anchors of the operations, events and schemas a page shows. */
const sectionsOf = (html: string): string[] =>
  [...html.matchAll(/<section class="(?:op|schema)" id="([^"]+)"/g)].map((m) => m[1] ?? '');

describe('the search of the API reference at /docs, without script, under the strict CSP', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('answers ?q= with what matches it, and leaves out what does not', async () => {
    const cases: { q: string; shows: string[]; hides: string[] }[] = [
      {
        q: 'external_id',
        shows: ['listCalls', 'getCall', 'createOutboundCall', 'schema-Call'],
        hides: ['whoami', 'getOpenApiDocument', 'schema-Problem'],
      },
      { q: 'IDEMPOTENCY', shows: ['createOutboundCall'], hides: ['listCalls', 'createWebhookSubscription'] },
      {
        q: 'X-Svc-Subscription-Id',
        shows: ['event-webhook_call_completed', 'event-webhook_call_transcript_ready'],
        hides: ['listWebhookSubscriptions'],
      },
      {
        q: 'transcript segments',
        shows: ['getCallTranscript', 'getOutboundCallTranscript'],
        hides: ['listCalls', 'whoami'],
      },
      { q: '/auth/whoami', shows: ['whoami'], hides: ['listAssistants'] },
      { q: 'no-such-thing-anywhere', shows: [], hides: ['whoami', 'schema-Call'] },
    ];
    for (const c of cases) {
      const res = await t.request('GET', `/docs?q=${encodeURIComponent(c.q)}`);
      assert.equal(res.status, 200, c.q);
      const shown = sectionsOf(res.text);
      for (const id of c.shows) assert.ok(shown.includes(id), `${c.q}: shows ${id}`);
      for (const id of c.hides) assert.ok(!shown.includes(id), `${c.q}: leaves out ${id}`);
      assert.match(
        res.text,
        new RegExp(`<input type="search" id="q" name="q" value="${c.q.replace(/[/]/g, '\\/')}"`),
        c.q,
      );
      assert.match(
        res.text,
        c.shows.length > 0 ? /role="status">\d+ operations?, / : /role="status">Nothing matches/,
      );
    }
    const fields = await t.request('GET', '/docs?q=external_id');
    assert.match(
      fields.text,
      // The query parameter (issue 39's filter) and the field of each item.
      /id="listCalls"(?:(?!<\/section>)[\s\S])*Matching fields: <code>external_id<\/code>, <code>data\[\]\.<wbr>external_id<\/code>/,
    );
    const everything = await t.request('GET', '/docs?q=%20%20');
    assert.equal(
      sectionsOf(everything.text).length,
      sectionsOf((await t.request('GET', '/docs')).text).length,
      'blank: all',
    );
  });

  it('refuses a search longer than 200 characters, or a repeated q, with a 422 page; 200 characters are fine', async () => {
    const cases = [
      { query: `q=${'a'.repeat(200)}`, status: 200, says: /Nothing matches/ },
      {
        query: `q=${'a'.repeat(201)}`,
        status: 422,
        says: /role="alert">Search for at most 200 characters\./,
      },
      { query: 'q=calls&q=assistants', status: 422, says: /role="alert">Search for one thing at a time/ },
    ];
    for (const c of cases) {
      const res = await t.request('GET', `/docs?${c.query}`);
      assert.equal(res.status, c.status, c.query.slice(0, 40));
      assert.match(res.headers['content-type'] ?? '', /^text\/html/);
      assert.match(res.text, c.says);
    }
  });

  it('keeps the CSP, adds no script, no inline style or handler, and escapes the query', async () => {
    const xss = `"><script>alert(1)</script><img src=x onerror=alert(1)>`;
    for (const path of [
      '/docs',
      '/docs?q=calls',
      `/docs?q=${encodeURIComponent(xss)}`,
      `/docs?q=${'a'.repeat(201)}`,
    ]) {
      const res = await t.request('GET', path);
      assert.equal(res.headers['content-security-policy'], CSP, path);
      // Tags only, their quoted values emptied: an escaped query inside `value="…"` is text, not an attribute.
      const tags = (res.text.match(/<[^>]+>/g) ?? []).map((tag) => tag.replace(/="[^"]*"/g, '=""'));
      assert.deepEqual(
        tags.filter((tag) => /^<script|\son[a-z]+=|\sstyle=|javascript:/i.test(tag)),
        [],
        path,
      );
      assert.doesNotMatch(res.text, /(src|href|action)="(https?:)?\/\//, `${path}: nothing from elsewhere`);
    }
    const echoed = await t.request('GET', `/docs?q=${encodeURIComponent(xss)}`);
    assert.ok(
      echoed.text.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'),
      'escaped in the box',
    );
    assert.match(echoed.text, /<form class="search" role="search" method="get" action="\/docs">/);
  });
});
