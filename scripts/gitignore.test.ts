import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');
const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
const ignored = (file: string): boolean => {
  const res = git('check-ignore', '--quiet', '--no-index', file);
  assert.ok(res.status === 0 || res.status === 1, res.stderr);
  return res.status === 0;
};

/** Every `--keys-file <path>` the README and the docs tell operators to run, as a path from the repository root. */
function keysFilesTheDocsWrite(): string[] {
  const docs = [
    'README.md',
    ...fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join('docs', f)),
  ];
  const files = docs.flatMap((doc) =>
    [...fs.readFileSync(path.join(ROOT, doc), 'utf8').matchAll(/--keys-file\s+([^\s`|)]+)/g)].map(
      (m) => m[1] ?? '',
    ),
  );
  // `npm run cli` runs in the repository root; a path with a placeholder is not one the docs write.
  return [...new Set(files)].filter((f) => !/[<>…]/.test(f)).map((f) => path.normalize(f));
}

/** What `npm pack` names the SDK's tarball: the package name without its `@`, `/` turned into `-`, and the version. */
function sdkTarball(): string {
  const { name, version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'sdk', 'package.json'), 'utf8'));
  return `${String(name).replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

// Following the README must leave `git status` clean: live keys and build output are never offered for a commit.
describe('.gitignore', {
  skip: git('rev-parse', '--is-inside-work-tree').status === 0 ? false : 'not a git work tree',
}, () => {
  it('ignores the keys files the docs write and the SDK tarballs, wherever they are made', () => {
    const keysFiles = keysFilesTheDocsWrite();
    assert.ok(keysFiles.includes('bench-keys.json'), `the README's seed line: ${keysFiles.join(', ')}`);
    for (const file of [...keysFiles, sdkTarball(), path.join('sdk', sdkTarball()), 'sdk/dist/index.js']) {
      assert.ok(ignored(file), `${file} is not ignored`);
    }
  });

  it('leaves what the project keeps to be committed', () => {
    for (const file of [
      'README.md',
      'package.json',
      'package-lock.json',
      'sdk/package.json',
      'src/main.ts',
      'bench/results/latest.json',
      'bench/README.md',
      'examples/quickstart.ts',
    ]) {
      assert.equal(ignored(file), false, `${file} is ignored`);
    }
  });
});
