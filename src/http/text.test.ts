import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storable, unstorable, unstorableText } from './text.ts';

describe('text the database cannot keep', () => {
  const refused: [string, string][] = [
    ['a NUL', 'a\u0000b'],
    ['a NUL alone', '\u0000'],
    ['a lone low surrogate', 'a\udc00b'],
    ['a lone high surrogate', 'a\ud83d'],
    ['a high surrogate at the end', 'end\ud800'],
    ['a pair in the wrong order', '\ude00\ud83d'],
  ];
  for (const [what, text] of refused) {
    it(`refuses ${what}`, () => {
      assert.notEqual(unstorable(text), null);
      assert.equal(unstorable(storable(text)), null, 'shown back as U+FFFD, which is storable');
    });
  }

  const allowed: [string, string][] = [
    ['ASCII', 'Front desk'],
    ['accents', 'Café crème, Ñandú, Straße'],
    ['CJK', '日本語の説明、한국어, 中文'],
    ['emoji (surrogate pairs)', 'ok 😀👍🏽 👨‍👩‍👧'],
    ['the replacement character itself', 'a\uFFFDb'],
    ['other control characters (fields that refuse them say so themselves)', 'tab\tnew\nline\u0001'],
    ['the empty string', ''],
  ];
  for (const [what, text] of allowed) {
    it(`allows ${what}`, () => {
      assert.equal(unstorable(text), null);
      assert.equal(storable(text), text);
    });
  }

  it('walks objects, their keys and arrays, naming each path', () => {
    const issues = unstorableText(
      {
        fine: 'é 😀',
        'k\u0000': 'v',
        nested: { deep: ['ok', 'x\udc00'] },
        n: 1,
        b: true,
        z: null,
      },
      ['body'],
    );
    assert.deepEqual(issues, [
      { path: ['body', 'k\uFFFD'], message: 'Keys must not contain the NUL character (U+0000).' },
      {
        path: ['body', 'nested', 'deep', '1'],
        message: 'Must not contain an unpaired surrogate (text that is not valid Unicode).',
      },
    ]);
    assert.deepEqual(unstorableText({ a: ['é', { '😀': '日本' }] }, ['query']), []);
  });
});
