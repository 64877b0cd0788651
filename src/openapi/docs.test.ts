import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { errorStatus } from '../errors/codes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('developer documentation', () => {
  it('docs/errors.md explains every error code with its status', () => {
    const doc = read('docs/errors.md');
    for (const [code, status] of Object.entries(errorStatus)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
      assert.ok(row, `docs/errors.md has a row for ${code}`);
      assert.match(
        row,
        new RegExp(`^\\| \`${code.replace('.', '\\.')}\` \\| ${status} \\|`),
        `${code} is ${status}`,
      );
      assert.ok(row.split('|').length >= 6, `${code} has meaning, fix and retry columns`);
    }
  });

  it('links only to files that exist in the repository, from the READMEs and every doc', () => {
    const files = [
      'README.md',
      ...readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`),
      ...readdirSync(path.join(ROOT, 'sdk')).map((f) => `sdk/${f}`),
    ].filter((f) => f.endsWith('.md'));
    for (const file of files) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^(https?:|mailto:|#)/.test(target)) continue;
        const resolved = path.join(ROOT, path.dirname(file), target.split('#')[0] ?? '');
        // A file beside the repository (the shared spec) is missing from every clone.
        assert.ok(
          resolved.startsWith(`${path.resolve(ROOT)}${path.sep}`),
          `${file} links to ${target}, outside the repository`,
        );
        assert.ok(existsSync(resolved), `${file} links to ${target}, which exists`);
      }
    }
  });
});
