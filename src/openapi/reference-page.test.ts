import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markdown, renderReference, typeLabel } from './reference-page.ts';

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
});
