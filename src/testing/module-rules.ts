import path from 'node:path';
import ts from 'typescript';
import { LAYERS, type ModuleMap } from '../modules.ts';

/**
 * The rules of src/modules.ts as pure functions over a source tree: paths relative to src/ (with `/`) and their
 * text. src/modules.test.ts runs them on the real tree; module-rules.test.ts plants each violation in a small one.
 *
 * Tests (`*.test.ts`) and the harness in testing/ are left out of the import and table rules: they may reach
 * whatever they test, and fixtures plant rows no service would write (an old delivery, a stuck job).
 */
export type SourceTree = ReadonlyMap<string, string>;
export type Rule = 'cycles' | 'front-door' | 'layers' | 'table-owner' | 'routes-no-sql' | 'map';
export type Violation = { file: string; rule: Rule; what: string };

export type Import = { from: string; to: string; specifier: string };

const TEST_FILE = /\.test\.ts$/;
const isCheckedSource = (file: string, modules: ModuleMap): boolean =>
  file.endsWith('.ts') && !TEST_FILE.test(file) && modules[moduleOf(file, modules)]?.kind !== 'tests';

/**
 * The module a file belongs to: its folder's, or the group that lists it among its top-level files. A folder or
 * file the map does not know is a module of its own, so the import rules still see it (and checkMap reports it).
 */
export function moduleOf(file: string, modules: ModuleMap): string {
  const slash = file.indexOf('/');
  if (slash >= 0) return file.slice(0, slash);
  return Object.keys(modules).find((name) => modules[name]?.files?.includes(file)) ?? file;
}

/**
 * The files another module may import: a folder's index.ts and the leaves the map names, or each file of a group
 * of top-level files.
 */
export function frontDoors(name: string, modules: ModuleMap): readonly string[] {
  const spec = modules[name];
  if (spec?.files) return spec.files;
  if (name.endsWith('.ts')) return [name];
  return [`${name}/index.ts`, ...(spec?.leaves ?? []).map((leaf) => `${name}/${leaf}`)];
}

/** Every rule reads the imports; a tree is scanned once. */
const importsByTree = new WeakMap<SourceTree, Import[]>();

/**
 * The relative imports of every file, found by TypeScript's own scanner (comments and strings are not imports;
 * `import type`, re-exports and `import('…')` are), resolved to paths of the tree.
 */
export function importsOf(tree: SourceTree): Import[] {
  const cached = importsByTree.get(tree);
  if (cached) return cached;
  const found: Import[] = [];
  for (const [file, text] of tree) {
    if (!file.endsWith('.ts')) continue;
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      if (target.startsWith('../')) continue;
      const to = [target, `${target}.ts`, `${target}/index.ts`].find((t) => tree.has(t)) ?? target;
      found.push({ from: file, to, specifier });
    }
  }
  importsByTree.set(tree, found);
  return found;
}

type Edge = { from: string; to: string; example: Import };

function crossModuleImports(tree: SourceTree, modules: ModuleMap): Edge[] {
  return importsOf(tree)
    .filter((i) => isCheckedSource(i.from, modules))
    .flatMap((i) => {
      const from = moduleOf(i.from, modules);
      const to = moduleOf(i.to, modules);
      return from !== to ? [{ from, to, example: i }] : [];
    });
}

/** a. No two modules import each other, directly or around a circle (Tarjan's strongly connected components). */
export function checkCycles(tree: SourceTree, modules: ModuleMap): Violation[] {
  const edges = crossModuleImports(tree, modules);
  const next = new Map<string, Map<string, Import>>();
  for (const e of edges) {
    const out = next.get(e.from) ?? new Map<string, Import>();
    if (!out.has(e.to)) out.set(e.to, e.example);
    next.set(e.from, out);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const to of next.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (stack.includes(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (let top = stack.pop(); top !== undefined; top = top === node ? undefined : stack.pop()) {
        component.push(top);
      }
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);

  return components.map((component) => {
    const inside = edges.filter(
      (e, i) =>
        component.includes(e.from) &&
        component.includes(e.to) &&
        edges.findIndex((o) => o.from === e.from && o.to === e.to) === i,
    );
    const arrows = inside.map((e) => `${e.from} → ${e.to} (${e.example.from})`).join('; ');
    return {
      file: inside[0]?.example.from ?? component[0] ?? '',
      rule: 'cycles',
      what: `modules ${component.join(', ')} import each other: ${arrows}`,
    };
  });
}

/** b. An import from another module goes through that module's front door. */
export function checkFrontDoors(tree: SourceTree, modules: ModuleMap): Violation[] {
  return crossModuleImports(tree, modules)
    .filter((e) => !frontDoors(e.to, modules).includes(e.example.to))
    .map((e) => ({
      file: e.example.from,
      rule: 'front-door',
      what: `imports ${e.example.to}, behind ${e.to}'s front door (${frontDoors(e.to, modules).join(', ')})`,
    }));
}

/** f. A module imports no module of a higher layer (the order of LAYERS in src/modules.ts). */
export function checkLayers(tree: SourceTree, modules: ModuleMap): Violation[] {
  const layer = (name: string): number => LAYERS.indexOf(modules[name]?.kind ?? 'tests');
  return crossModuleImports(tree, modules)
    .filter((e) => modules[e.from] && modules[e.to] && layer(e.to) > layer(e.from))
    .map((e) => ({
      file: e.example.from,
      rule: 'layers',
      what: `${e.from} (${modules[e.from]?.kind}) imports ${e.example.to} of ${e.to} (${modules[e.to]?.kind}), a higher layer`,
    }));
}

/** The tables of the schema: the properties of `interface DB` in db/schema.ts. */
export function schemaTables(tree: SourceTree): string[] {
  const source = ts.createSourceFile('schema.ts', tree.get('db/schema.ts') ?? '', ts.ScriptTarget.Latest);
  const db = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'DB',
  );
  return (db?.members ?? []).flatMap((m) =>
    m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? [m.name.text] : [],
  );
}

const KYSELY_TABLE_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'with',
  'join',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoinLateral',
  'table',
  'using',
]);
const SQL_STATEMENT = /^\s*\(?\s*(select|insert|update|delete|with|truncate|vacuum|analyze)\b/i;
const SQL_TABLE_NAME = /\b(?:from|join|into|update|table|truncate)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;

/** The tables a file names in SQL: Kysely's builders (`selectFrom('calls as c')`, joins, …) and raw SQL text. */
export function tablesNamedIn(file: string, text: string, tables: ReadonlySet<string>): Set<string> {
  const named = new Set<string>();
  const fromText = (sqlText: string): void => {
    for (const match of sqlText.matchAll(SQL_TABLE_NAME)) {
      const name = match[1]?.toLowerCase() ?? '';
      if (tables.has(name)) named.add(name);
    }
  };
  const fromArgument = (arg: ts.Expression | undefined): void => {
    if (!arg) return;
    if (ts.isArrayLiteralExpression(arg)) {
      for (const element of arg.elements) fromArgument(element);
      return;
    }
    if (!ts.isStringLiteralLike(arg)) return;
    const name = (arg.text.trim().split(/\s+/)[0] ?? '').split('.').pop() ?? '';
    if (tables.has(name)) named.add(name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      if (KYSELY_TABLE_METHODS.has(node.expression.name.text)) fromArgument(node.arguments[0]);
    } else if (ts.isTaggedTemplateExpression(node) && node.tag.getText() === 'sql') {
      const t = node.template;
      fromText(
        ts.isNoSubstitutionTemplateLiteral(t)
          ? t.text
          : [t.head, ...t.templateSpans.map((s) => s.literal)].map((p) => p.text).join(' ? '),
      );
    } else if (ts.isStringLiteralLike(node) && SQL_STATEMENT.test(node.text)) {
      fromText(node.text);
    } else if (ts.isTemplateExpression(node) && SQL_STATEMENT.test(node.head.text)) {
      fromText([node.head, ...node.templateSpans.map((s) => s.literal)].map((p) => p.text).join(' ? '));
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return named;
}

/** c. A table is named in SQL only inside its owner (migrations and table types are the schema, not a use). */
export function checkTableOwners(tree: SourceTree, modules: ModuleMap): Violation[] {
  const tables = new Set(schemaTables(tree));
  const owner = new Map<string, string>();
  for (const [name, spec] of Object.entries(modules)) for (const t of spec.tables) owner.set(t, name);
  const violations: Violation[] = [];
  for (const [file, text] of tree) {
    if (
      !isCheckedSource(file, modules) ||
      file.startsWith('db/migrations/') ||
      file.startsWith('db/tables/')
    ) {
      continue;
    }
    const module = moduleOf(file, modules);
    for (const table of tablesNamedIn(file, text, tables)) {
      if (owner.get(table) === module) continue;
      violations.push({
        file,
        rule: 'table-owner',
        what: `names table ${table} in SQL, owned by ${owner.get(table) ?? 'no module'}`,
      });
    }
  }
  return violations;
}

const isRouteOrView = (file: string): boolean =>
  /\.(routes|views?)\.ts$/.test(file) || file.startsWith('dashboard/views/');

/** The specifiers a file imports for types only (`import type`, or every name marked `type`). */
function typeOnlySpecifiers(file: string, text: string): Set<string> {
  const typeOnly = new Set<string>();
  for (const statement of ts.createSourceFile(file, text, ts.ScriptTarget.Latest).statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const clause = statement.importClause;
    const named = clause?.namedBindings;
    const onlyTypes =
      clause?.isTypeOnly ||
      (clause &&
        !clause.name &&
        named &&
        ts.isNamedImports(named) &&
        named.elements.every((e) => e.isTypeOnly));
    if (onlyTypes) typeOnly.add(statement.moduleSpecifier.text);
  }
  return typeOnly;
}

/**
 * d. Routes and views call services: they import no repository, nothing of db/ and not Kysely. A row's type is
 * the one exception (`import type` from Kysely, `db/tables/` or db's front door, which re-exports them): a view
 * maps its module's rows to API shapes.
 */
export function checkRoutesNoSql(tree: SourceTree): Violation[] {
  const violations: Violation[] = [];
  const allImports = importsOf(tree);
  for (const [file, text] of tree) {
    if (!isRouteOrView(file) || TEST_FILE.test(file)) continue;
    const typeOnly = typeOnlySpecifiers(file, text);
    const imports = allImports.filter((i) => i.from === file);
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (/^kysely(\/|$)/.test(fileName) && !typeOnly.has(fileName)) {
        violations.push({
          file,
          rule: 'routes-no-sql',
          what: `imports ${fileName} (SQL belongs in a repository)`,
        });
      }
    }
    for (const i of imports) {
      const rowType = (i.to.startsWith('db/tables/') || i.to === 'db/index.ts') && typeOnly.has(i.specifier);
      if (i.to.endsWith('.repository.ts') || (i.to.startsWith('db/') && !rowType)) {
        violations.push({ file, rule: 'routes-no-sql', what: `imports ${i.to} (call a service instead)` });
      }
    }
  }
  return violations;
}

/**
 * e. The map matches the tree: every table of the schema has exactly one owner (and the map names no other),
 * every file belongs to a module, every module exists, every folder module has its index.ts and a README.md of
 * at most 8 lines.
 */
export function checkMap(tree: SourceTree, modules: ModuleMap): Violation[] {
  const violations: Violation[] = [];
  const tables = schemaTables(tree);
  for (const table of tables) {
    const owners = Object.keys(modules).filter((name) => modules[name]?.tables.includes(table));
    if (owners.length !== 1) {
      violations.push({
        file: 'modules.ts',
        rule: 'map',
        what: `table ${table} has ${owners.length} owners${owners.length ? ` (${owners.join(', ')})` : ''}`,
      });
    }
  }
  for (const [name, spec] of Object.entries(modules)) {
    for (const table of spec.tables.filter((t) => !tables.includes(t))) {
      violations.push({
        file: 'modules.ts',
        rule: 'map',
        what: `${name} owns ${table}, not a table of db/schema.ts`,
      });
    }
    for (const leaf of spec.leaves ?? []) {
      const text = tree.get(`${name}/${leaf}`);
      const leaves = (spec.leaves ?? []).map((l) => `${name}/${l}`);
      const beyond = importsOf(tree).filter((i) => i.from === `${name}/${leaf}` && !leaves.includes(i.to));
      if (text === undefined || beyond.length > 0) {
        violations.push({
          file: `${name}/${leaf}`,
          rule: 'map',
          what: `${name} names ${leaf} a leaf, but it ${text === undefined ? 'does not exist' : `imports ${beyond[0]?.to}`}`,
        });
      }
    }
    if (spec.files) {
      for (const f of spec.files.filter((f) => !tree.has(f))) {
        violations.push({
          file: 'modules.ts',
          rule: 'map',
          what: `${name} lists ${f}, which does not exist`,
        });
      }
      continue;
    }
    const readme = tree.get(`${name}/README.md`);
    if (readme === undefined) {
      violations.push({
        file: `${name}/README.md`,
        rule: 'map',
        what: `folder module ${name} has no README.md`,
      });
    } else if (readme.trimEnd().split('\n').length > 8) {
      violations.push({ file: `${name}/README.md`, rule: 'map', what: 'a README.md of more than 8 lines' });
    }
    // Only tests import the harness, and tests may reach any file: it needs no door.
    const hasCode = [...tree.keys()].some((f) => f.startsWith(`${name}/`) && f.endsWith('.ts'));
    if (hasCode && spec.kind !== 'tests' && !tree.has(`${name}/index.ts`)) {
      violations.push({
        file: `${name}/index.ts`,
        rule: 'map',
        what: `folder module ${name} has no front door`,
      });
    }
  }
  const unmapped = new Set(
    [...tree.keys()]
      .filter((f) => f.endsWith('.ts') && !TEST_FILE.test(f) && !modules[moduleOf(f, modules)])
      .map((f) => (f.includes('/') ? `${f.slice(0, f.indexOf('/'))}/` : f)),
  );
  for (const f of unmapped) {
    violations.push({ file: f, rule: 'map', what: 'belongs to no module of src/modules.ts' });
  }
  return violations;
}

/** Every rule over one tree. */
export function checkModules(tree: SourceTree, modules: ModuleMap): Violation[] {
  return [
    ...checkMap(tree, modules),
    ...checkCycles(tree, modules),
    ...checkLayers(tree, modules),
    ...checkFrontDoors(tree, modules),
    ...checkTableOwners(tree, modules),
    ...checkRoutesNoSql(tree),
  ];
}

/** One line per violation, grouped by rule, for a failing test's message. */
export function formatViolations(violations: readonly Violation[]): string {
  const rules = [...new Set(violations.map((v) => v.rule))];
  return rules
    .map((rule) => {
      const of = violations.filter((v) => v.rule === rule);
      return [`${rule} (${of.length}):`, ...of.map((v) => `  ${v.file}: ${v.what}`)].join('\n');
    })
    .join('\n');
}
