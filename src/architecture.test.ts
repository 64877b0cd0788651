import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/**
 * The floors of docs/architecture.md. A module imports only modules on lower floors, so no two modules import
 * each other, directly or around a circle. A new folder or top-level file must be given a floor here.
 */
const FLOORS: Record<string, number> = {
  db: 0,
  errors: 0,
  'rate-limit': 0,
  crypto: 0,
  control: 0,
  'clock.ts': 0,
  'compile-cache.ts': 0,
  'loop.ts': 0,
  'ids.ts': 0,
  'logger.ts': 0,
  'signer.ts': 0,
  'phone.ts': 0,
  'outbound-limits.ts': 0,
  'server-secret.ts': 0,
  'shutdown.ts': 0,
  http: 1,
  'config.ts': 1,
  events: 1,
  delivery: 1,
  provider: 1,
  customers: 1,
  pagination: 1,
  ops: 1,
  maintenance: 1,
  'storage.ts': 2,
  keys: 2,
  openapi: 2,
  access: 3,
  assistants: 3,
  calls: 3,
  lifecycle: 4,
  transcripts: 4,
  outbound: 5,
  upstream: 5,
  webhooks: 5,
  dashboard: 6,
  'services.ts': 7,
  demo: 8,
  'routes.ts': 8,
  'runtime.ts': 8,
  'app.ts': 9,
  cli: 9,
  'worker.ts': 9,
  'server.ts': 10,
  testing: 10,
  'serve.ts': 11,
  'main.ts': 12,
};

const SRC = import.meta.dirname;
const moduleOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0] ?? '';

/** Every relative import of every source file (tests left out: they may reach anything they test). */
function imports(): { from: string; to: string; line: string }[] {
  const found: { from: string; to: string; line: string }[] = [];
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.includes('.test.')) continue;
    const file = path.join(entry.parentPath, entry.name);
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), match[1] ?? '');
      found.push({ from: file, to: target, line: `${path.relative(SRC, file)} → ${match[1]}` });
    }
  }
  return found;
}

describe('architecture', () => {
  const all = imports();

  it('gives every module of src/ a floor', () => {
    const modules = new Set(all.flatMap((i) => [moduleOf(i.from), moduleOf(i.to)]));
    assert.deepEqual(
      [...modules].filter((m) => !(m in FLOORS)),
      [],
    );
  });

  it('imports only downwards: no module reaches one on its own floor or above', () => {
    const upward = all
      .filter((i) => moduleOf(i.from) !== moduleOf(i.to))
      .filter((i) => (FLOORS[moduleOf(i.to)] ?? 0) >= (FLOORS[moduleOf(i.from)] ?? 0))
      .map((i) => i.line);
    assert.deepEqual(upward, []);
  });

  it('the check sees imports: it finds the ones it must', () => {
    assert.ok(all.some((i) => i.line === 'services.ts → ./lifecycle/lifecycle.service.ts'));
    assert.ok(all.length > 500);
  });
});
