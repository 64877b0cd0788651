import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { breakable, markdown, renderReference, typeLabel } from './reference-page.ts';
import { search, searchIndex } from './reference-search.ts';

describe('reference page rendering', () => {
  it('escapes every string of the document', () => {
    const html = renderReference(
      {
        openapi: '3.1.0',
        info: { title: '<img src=x onerror=alert(1)>', version: '1"', description: '`<b>` and **<i>**' },
        tags: [{ name: 'T<', description: '<script>' }],
        paths: {
          '/x/{id}': {
            get: {
              operationId: 'op"><script>',
              tags: ['T<'],
              summary: '<script>alert(1)</script>',
              parameters: [{ name: '<p>', in: 'query', schema: { type: 'string' }, description: '<p>' }],
              responses: { '200': { description: '<ok>' } },
            },
          },
        },
        components: { schemas: { '<S>': { type: 'object', properties: { '<f>': { type: 'string' } } } } },
      },
      '/api/v1/openapi.json',
    );
    assert.doesNotMatch(html, /<script|<img|<b>|<i>|<ok>|<f>|<S>|"><script/);
    assert.match(html, /<code>&lt;p&gt;<\/code>/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('renders the little Markdown and links schema references', () => {
    assert.equal(markdown('a `b` **c**'), '<p>a <code>b</code> <strong>c</strong></p>');
    assert.equal(markdown('- one\n- two\n  more'), '<ul><li>one</li><li>two more</li></ul>');
    assert.equal(typeLabel({ $ref: '#/components/schemas/Call' }), '<a href="#schema-Call">Call</a>');
    assert.equal(typeLabel({ type: 'array', items: { type: 'string', format: 'uuid' } }), 'string (uuid)[]');
    assert.equal(typeLabel({ type: ['string', 'null'] }), 'string | null');
  });

  it('nests no table in another: nested fields are rows named by path, paths wrap after / and .', () => {
    const html = renderReference(
      {
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        tags: [{ name: 'A' }],
        paths: { '/webhook-events/{id}': { get: { operationId: 'op', tags: ['A'], responses: {} } } },
        components: {
          schemas: {
            Page: {
              type: 'object',
              properties: {
                data: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { transcript: { type: 'object', properties: { text: { type: 'string' } } } },
                  },
                },
              },
            },
          },
        },
      },
      '/api/v1/openapi.json',
    );
    assert.doesNotMatch(html, /<td>(?:(?!<\/td>)[\s\S])*<table/, 'no table inside a cell');
    assert.match(html, /<code>data\[\]\.<wbr>transcript\.<wbr>text<\/code>/);
    assert.match(html, /<code class="path">\/<wbr>webhook-events\/<wbr>\{id\}<\/code>/);
    assert.match(html, /<details class="toc"><summary>/);
    assert.match(html, /<link rel="icon" href="\/docs\/favicon.svg"/);
    assert.equal(breakable('a/b.c<'), 'a/<wbr>b.<wbr>c&lt;');
  });

  it('searches every word in operations and their fields through $refs, a schema that contains itself too', () => {
    const doc = {
      paths: {
        '/nodes': {
          get: {
            operationId: 'listNodes',
            summary: 'List nodes',
            responses: {
              '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
            },
          },
        },
        '/other': { get: { operationId: 'other', summary: 'Else', responses: {} } },
      },
      components: {
        schemas: {
          Node: {
            type: 'object',
            properties: {
              label: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
            },
          },
        },
      },
    };
    const index = searchIndex(doc);
    const cases: [string, string[]][] = [
      ['children label', ['listNodes', 'schema-Node']],
      ['LABEL', ['listNodes', 'schema-Node']],
      ['label else', []],
      ['else', ['other']],
    ];
    for (const [q, ids] of cases) assert.deepEqual([...search(index, q).keys()], ids, q);
    assert.deepEqual(search(index, 'label').get('listNodes'), ['label']);
    assert.deepEqual(search(index, 'children').get('schema-Node'), ['children']);
  });
});
