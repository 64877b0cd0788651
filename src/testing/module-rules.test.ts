import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModuleMap } from '../modules.ts';
import {
  checkCycles,
  checkFrontDoors,
  checkLayers,
  checkMap,
  checkModules,
  checkRoutesNoSql,
  checkTableOwners,
  importsOf,
  type SourceTree,
  tablesNamedIn,
  type Violation,
} from './module-rules.ts';

const MAP: ModuleMap = {
  base: { kind: 'platform', purpose: 'clock', tables: [], files: ['clock.ts'] },
  db: { kind: 'platform', purpose: 'schema', tables: [] },
  calls: { kind: 'domain', purpose: 'calls', tables: ['calls'] },
  outbound: { kind: 'domain', purpose: 'spend', tables: ['spend'] },
  app: { kind: 'app', purpose: 'wiring', tables: [], files: ['app.ts'] },
};

/** A tree that keeps every rule; each test plants one violation in a copy of it. */
const CLEAN: Record<string, string> = {
  'clock.ts': 'export const now = () => new Date();\n',
  'db/README.md': 'The schema.\n',
  'db/index.ts': "export type { DB } from './schema.ts';\n",
  'db/schema.ts': 'export interface DB {\n  calls: { id: string };\n  spend: { id: string };\n}\n',
  'db/migrations/0001.ts':
    "export const up = (db) => sql`insert into calls (id) values ('first')`.execute(db);\n",
  'calls/README.md': 'Calls.\n',
  'calls/index.ts': "export { createCall } from './calls.service.ts';\n",
  'calls/calls.service.ts':
    "import { insertCall } from './calls.repository.ts';\nexport const createCall = insertCall;\n",
  'calls/calls.repository.ts': [
    "import { sql } from 'kysely';",
    "import type { DB } from '../db/index.ts';",
    "import { now } from '../clock.ts';",
    "export const insertCall = (db) => db.insertInto('calls').values({ at: now() }).execute();",
    'export const count = (db) => sql`select count(*) from calls`.execute(db);',
    '',
  ].join('\n'),
  'calls/calls.routes.ts':
    "import { createCall } from './calls.service.ts';\nexport const route = createCall;\n",
  'calls/calls.test.ts':
    "import '../outbound/outbound.service.ts';\nconst q = (db) => db.selectFrom('spend');\n",
  'outbound/README.md': 'Spend.\n',
  'outbound/index.ts': "export { place } from './outbound.service.ts';\n",
  'outbound/outbound.service.ts': [
    "import { createCall } from '../calls/index.ts';",
    "export const place = (db) => db.selectFrom('spend as s').selectAll().execute().then(createCall);",
    '',
  ].join('\n'),
  'app.ts': "import { place } from './outbound/index.ts';\nimport { now } from './clock.ts';\nplace(now);\n",
};

function planted(changes: Record<string, string | undefined>): SourceTree {
  const tree = new Map(Object.entries(CLEAN));
  for (const [file, text] of Object.entries(changes)) {
    if (text === undefined) tree.delete(file);
    else tree.set(file, text);
  }
  return tree;
}
const clean = planted({});
const whats = (violations: Violation[]): string[] => violations.map((v) => `${v.file}: ${v.what}`);
const append = (file: string, line: string): Record<string, string> => ({
  [file]: `${CLEAN[file]}${line}\n`,
});

describe('module rules', () => {
  it('pass on a tree that keeps them', () => {
    assert.deepEqual(checkModules(clean, MAP), []);
  });

  it('read imports with TypeScript: type-only, re-exports and import() count; comments and strings do not', () => {
    const tree = planted({
      'x.ts': [
        "import type { A } from './a.ts';",
        "export * from './b.ts';",
        "export { c } from './c/index.ts';",
        "// import './commented.ts';",
        'const s = "import \'./string.ts\'";',
        "const d = () => import('./d.ts');",
        "import 'kysely';",
        '',
      ].join('\n'),
    });
    assert.deepEqual(
      importsOf(tree)
        .filter((i) => i.from === 'x.ts')
        .map((i) => i.to),
      ['a.ts', 'b.ts', 'c/index.ts', 'd.ts'],
    );
  });

  it('a. find modules that import each other, through a type or an import() too', () => {
    assert.deepEqual(checkCycles(clean, MAP), []);
    for (const line of [
      "import type { place } from '../outbound/index.ts';",
      "export const later = () => import('../outbound/index.ts');",
    ]) {
      const cycles = checkCycles(planted(append('calls/calls.service.ts', line)), MAP);
      assert.deepEqual(whats(cycles), [
        'calls/calls.service.ts: modules calls, outbound import each other: ' +
          'calls → outbound (calls/calls.service.ts); outbound → calls (outbound/outbound.service.ts)',
      ]);
    }
    const commented = planted(append('calls/calls.service.ts', "// import '../outbound/index.ts';"));
    assert.deepEqual(checkCycles(commented, MAP), []);
  });

  it('b. find an import past another module’s front door, a re-export too; a leaf the map names is a door; tests may reach in', () => {
    assert.deepEqual(checkFrontDoors(clean, MAP), []);
    const reachIn = planted(
      append('outbound/outbound.service.ts', "export * from '../calls/calls.repository.ts';"),
    );
    assert.deepEqual(whats(checkFrontDoors(reachIn, MAP)), [
      "outbound/outbound.service.ts: imports calls/calls.repository.ts, behind calls's front door (calls/index.ts)",
    ]);
    const leafy: ModuleMap = {
      ...MAP,
      calls: { ...(MAP.calls as ModuleMap[string]), leaves: ['statuses.ts'] },
    };
    const leafImport = planted({
      'calls/statuses.ts': "export const STATUSES = ['queued'];\n",
      'outbound/statuses.ts': "export { STATUSES } from '../calls/statuses.ts';\n",
    });
    assert.deepEqual(checkFrontDoors(leafImport, leafy), [], 'a leaf the map names is a door');
    assert.deepEqual(checkMap(leafImport, leafy), []);
    const heavyLeaf = planted({
      'calls/statuses.ts':
        "import { insertCall } from './calls.repository.ts';\nexport const STATUSES = [insertCall];\n",
    });
    assert.deepEqual(whats(checkMap(heavyLeaf, leafy)), [
      'calls/statuses.ts: calls names statuses.ts a leaf, but it imports calls/calls.repository.ts',
    ]);
  });

  it('f. find a module importing one of a higher layer', () => {
    assert.deepEqual(checkLayers(clean, MAP), []);
    const up = planted({
      'clock.ts': "import { createCall } from './calls/index.ts';\nexport const now = createCall;\n",
    });
    assert.deepEqual(whats(checkLayers(up, MAP)), [
      'clock.ts: base (platform) imports calls/index.ts of calls (domain), a higher layer',
    ]);
  });

  it('c. find a table named in SQL outside its owner: builders, joins and raw sql; migrations and tests exempt', () => {
    assert.deepEqual(checkTableOwners(clean, MAP), []);
    for (const line of [
      "export const a = (db) => db.selectFrom('spend as s').innerJoin('calls as c', 'c.id', 's.id');",
      "export const b = (db) => db.updateTable('calls').set({ x: 1 });",
      `export const c = (db) => sql\`delete from calls where id = \${1}\`;`,
      "export const d = 'insert into calls (id) values ($1)';",
    ]) {
      const tree = planted(append('outbound/outbound.service.ts', line));
      assert.deepEqual(whats(checkTableOwners(tree, MAP)), [
        'outbound/outbound.service.ts: names table calls in SQL, owned by calls',
      ]);
    }
  });

  it('c. see a table only where SQL names it, not in prose or column names', () => {
    const tables = new Set(['calls', 'spend']);
    const prose = [
      "const m = 'No calls from this key: spend from another';",
      "db.selectFrom('other').select('calls.id');",
    ];
    assert.deepEqual([...tablesNamedIn('x.ts', prose.join('\n'), tables)], []);
    const text = [
      "const u = db.selectFrom(['spend', 'other as o']);",
      `const v = sql\`select 1 from \${sql.table(name)} join "calls" on true\`;`,
    ].join('\n');
    assert.deepEqual([...tablesNamedIn('x.ts', text, tables)].sort(), ['calls', 'spend']);
  });

  it("d. find a route or view importing a repository, db/ or Kysely; a row type (from db/tables or db's door) is allowed", () => {
    assert.deepEqual(checkRoutesNoSql(clean), []);
    const rowTypes = planted({
      'db/tables/calls.table.ts': 'export type CallsTable = { id: string };\n',
      'calls/calls.views.ts': [
        "import type { Selectable } from 'kysely';",
        "import { type CallsTable } from '../db/tables/calls.table.ts';",
        "import type { DB } from '../db/index.ts';",
        'export const toApi = (row: Selectable<CallsTable>) => row.id;',
        '',
      ].join('\n'),
    });
    assert.deepEqual(checkRoutesNoSql(rowTypes), []);
    const tree = planted({
      'calls/calls.routes.ts': [
        "import { sql } from 'kysely';",
        "import { DB } from '../db/index.ts';",
        "import type { insertCall } from './calls.repository.ts';",
        "import { type CallsTable, callsTable } from '../db/tables/calls.table.ts';",
        '',
      ].join('\n'),
      'db/tables/calls.table.ts':
        "export type CallsTable = { id: string };\nexport const callsTable = 'calls';\n",
      'dashboard/views/calls.view.ts': "import { count } from '../../calls/calls.repository.ts';\n",
    });
    assert.deepEqual(whats(checkRoutesNoSql(tree)), [
      'calls/calls.routes.ts: imports kysely (SQL belongs in a repository)',
      'calls/calls.routes.ts: imports db/index.ts (call a service instead)',
      'calls/calls.routes.ts: imports calls/calls.repository.ts (call a service instead)',
      'calls/calls.routes.ts: imports db/tables/calls.table.ts (call a service instead)',
      'dashboard/views/calls.view.ts: imports calls/calls.repository.ts (call a service instead)',
    ]);
  });

  it('e. find a table without one owner, a folder without index.ts or a short README, a file of no module', () => {
    assert.deepEqual(checkMap(clean, MAP), []);
    const tree = planted({
      'db/schema.ts': 'export interface DB {\n  calls: {};\n  spend: {};\n  orphans: {};\n}\n',
      'outbound/index.ts': undefined,
      'calls/README.md': 'line\n'.repeat(9),
      'events/outbox.ts': 'export {};\n',
    });
    const twice: ModuleMap = { ...MAP, app: { ...(MAP.app as ModuleMap[string]), tables: ['calls'] } };
    assert.deepEqual(whats(checkMap(tree, twice)), [
      'modules.ts: table calls has 2 owners (calls, app)',
      'modules.ts: table orphans has 0 owners',
      'calls/README.md: a README.md of more than 8 lines',
      'outbound/index.ts: folder module outbound has no front door',
      'events/: belongs to no module of src/modules.ts',
    ]);
  });
});
