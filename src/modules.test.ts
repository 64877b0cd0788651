import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MAP_END, MAP_START, MODULES, renderModuleMap, withModuleMap } from './modules.ts';
import { checkModules, formatViolations, importsOf, type SourceTree } from './testing/module-rules.ts';

const SRC = import.meta.dirname;
const ARCHITECTURE = path.join(SRC, '../docs/architecture.md');

/** The sources and READMEs of src/, by path relative to it. */
function sourceTree(): SourceTree {
  const tree = new Map<string, string>();
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !(entry.name.endsWith('.ts') || entry.name === 'README.md')) continue;
    const file = path.join(entry.parentPath, entry.name);
    tree.set(path.relative(SRC, file).split(path.sep).join('/'), readFileSync(file, 'utf8'));
  }
  return tree;
}

describe('modules', () => {
  it('keeps the rules of src/modules.ts: no cycles, front doors, layers, one owner per table, no SQL in routes', () => {
    const violations = checkModules(sourceTree(), MODULES);
    assert.equal(violations.length, 0, `${violations.length} violations:\n${formatViolations(violations)}`);
  });

  it('sees the imports: every relative import of src/ resolves to one of its files', () => {
    const tree = sourceTree();
    const imports = importsOf(tree);
    assert.ok(imports.length > 500, `only ${imports.length} imports found`);
    assert.deepEqual(
      imports.filter((i) => !tree.has(i.to)).map((i) => `${i.from} → ${i.specifier}`),
      [],
    );
  });

  it('docs/architecture.md shows the map as it is (npm run docs:modules rewrites it)', () => {
    const doc = readFileSync(ARCHITECTURE, 'utf8');
    assert.equal(doc, withModuleMap(doc, renderModuleMap()), 'stale module map: run npm run docs:modules');
  });

  it('rewrites only the block between the markers, and refuses a document without them', () => {
    const doc = `# Title\n\n${MAP_START}\nold\n${MAP_END}\n\nAfter.\n`;
    assert.equal(withModuleMap(doc, 'new'), `# Title\n\n${MAP_START}\nnew\n${MAP_END}\n\nAfter.\n`);
    assert.throws(() => withModuleMap('# Title\n', 'new'), /no <!-- module-map:start -->/);
  });
});
