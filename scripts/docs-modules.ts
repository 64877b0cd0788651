// `npm run docs:modules`: rewrites the module map of docs/architecture.md (between its module-map markers) from
// src/modules.ts; src/modules.test.ts fails while the document is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withModuleMap } from '../src/modules.ts';

const ARCHITECTURE = path.resolve(import.meta.dirname, '../docs/architecture.md');
const before = readFileSync(ARCHITECTURE, 'utf8');
const after = withModuleMap(before);
if (after !== before) writeFileSync(ARCHITECTURE, after);
console.log(
  after === before
    ? 'docs/architecture.md: module map up to date'
    : 'docs/architecture.md: module map rewritten',
);
