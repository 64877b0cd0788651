import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attr, escapeHtml, html, raw, SafeHtml } from './html.ts';

describe('html tagged template', () => {
  it('escapes every interpolated string: tags, attributes quotes, ampersands, backticks', () => {
    const evil = `<script>alert("x")</script>' onmouseover='y' & \``;
    const out = html`<p title="${evil}">${evil}</p>`.value;
    assert.equal(
      out,
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;y&#39; &amp; &#96;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;y&#39; &amp; &#96;</p>',
    );
    assert.equal(out.includes('<script>'), false);
  });

  it('keeps nested html fragments as markup, but escapes strings inside them', () => {
    const item = (s: string) => html`<li>${s}</li>`;
    assert.equal(
      html`<ul>${['a<b', 'c&d'].map(item)}</ul>`.value,
      '<ul><li>a&lt;b</li><li>c&amp;d</li></ul>',
    );
  });

  it('renders numbers and bigints, and nothing for null, undefined and booleans', () => {
    assert.equal(html`${1}|${2n}|${null}|${undefined}|${false}|${true}|${0}`.value, '1|2|||||0');
  });

  it('passes raw() through untouched: only for trusted fragments', () => {
    assert.equal(html`<div>${raw('<b>ok</b>')}</div>`.value, '<div><b>ok</b></div>');
    assert.ok(raw('x') instanceof SafeHtml);
  });

  it('does not treat a look-alike object as safe', () => {
    const fake = { value: '<img src=x onerror=alert(1)>', toString: () => '<img src=x onerror=alert(1)>' };
    assert.equal(html`${String(fake)}`.value, '&lt;img src=x onerror=alert(1)&gt;');
  });

  it('writes boolean attributes only when on', () => {
    assert.equal(html`<input${attr('checked', true)}${attr('disabled', false)}>`.value, '<input checked>');
  });

  it('escapeHtml leaves safe text alone', () => {
    assert.equal(escapeHtml('plain text 123'), 'plain text 123');
  });
});
