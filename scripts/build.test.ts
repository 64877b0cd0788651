import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { build, isStale, sourcesHash } from './build.ts';

/** A tree shaped like the project's (what `npm start`'s rebuild check reads) and a stamp as a build leaves. */
function tree(): { root: string; write(file: string, text: string): void; stamp(): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vca-build-'));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('src/main.ts', 'export {};\n');
  write('src/dashboard/static/dashboard.css', 'body {}\n');
  write('src/calls/calls.test.ts', '// a test\n');
  write('package-lock.json', '{}\n');
  write('scripts/build.ts', '// the build\n');
  return { root, write, stamp: () => write('dist/sources.sha256', sourcesHash(root)) };
}

describe('npm start rebuilds dist/ when its sources changed (prestart: build.ts --if-stale)', () => {
  it('a tree never built is stale; one just built is not', () => {
    const t = tree();
    assert.equal(isStale(t.root), true);
    t.stamp();
    assert.equal(isStale(t.root), false);
  });

  const changes: [string, string, boolean][] = [
    ['a server source', 'src/main.ts', true],
    ['a new server source', 'src/calls/new-module.ts', true],
    ['a static file the dashboard serves', 'src/dashboard/static/dashboard.css', true],
    ['the locked dependencies', 'package-lock.json', true],
    ['the build script', 'scripts/build.ts', true],
    ['a test file', 'src/calls/calls.test.ts', false],
    ['a file outside src/', 'docs/notes.md', false],
  ];
  for (const [what, file, stale] of changes) {
    it(`changing ${what} ${stale ? 'makes it stale' : 'keeps it fresh'}`, () => {
      const t = tree();
      t.stamp();
      t.write(file, `// changed ${Date.now()}\n`);
      assert.equal(isStale(t.root), stale);
    });
  }
});

describe('a rebuild under a running server (build.ts)', () => {
  it("keeps the previous build's chunks, which that server may still load, until the next build", async () => {
    const t = tree();
    t.write('src/main.ts', "const { value } = await import('./later.ts');\nconsole.log(value);\n");
    t.write('src/db/pglite-worker.ts', 'export {};\n');
    t.write('src/db/schema-template.ts', 'export {};\n');
    const chunks = () => fs.readdirSync(path.join(t.root, 'dist')).filter((f) => /^later-.*\.js$/.test(f));
    const run = () =>
      spawnSync(process.execPath, [path.join(t.root, 'dist', 'main.js')], { encoding: 'utf8' });

    t.write('src/later.ts', "export const value = 'first';\n");
    await build(t.root);
    const [first] = chunks();
    assert.ok(first);
    assert.equal(isStale(t.root), false);
    assert.equal(run().stdout, 'first\n');
    assert.ok(fs.existsSync(path.join(t.root, 'dist', 'static', 'dashboard.css')));

    t.write('src/later.ts', "export const value = 'second';\n");
    await build(t.root);
    assert.equal(run().stdout, 'second\n');
    const second = chunks().find((c) => c !== first);
    assert.deepEqual(chunks().sort(), [first, second].sort(), "the first build's chunk is still there");

    t.write('src/later.ts', "export const value = 'third';\n");
    await build(t.root);
    assert.equal(run().stdout, 'third\n');
    assert.equal(chunks().includes(first), false, 'two builds on, it goes');
    assert.equal(chunks().includes(second ?? ''), true);
  });
});
