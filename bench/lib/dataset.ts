import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { SeededKey } from '../../src/cli/seed-dataset.ts';
import type { Database, DatabaseHandle } from '../../src/db/database.ts';
import type { Backend } from './backend.ts';
import type { Sizes } from './options.ts';
import { MAIN_TS } from './paths.ts';
import { runCommand } from './proc.ts';

/** What the load scripts need: keys (with their customers' assistants) and the seed's time span. */
export type Fixture = {
  seededAt: string;
  /** Seconds the seeding took, when this run did it (null: reused from the cache). */
  seededSeconds: number | null;
  main: { key: string; keyId: string; customerId: string; assistants: string[] }[];
  deep: { key: string; keyId: string; customerId: string; calls: number };
  outbound: { key: string; keyId: string; customerId: string; assistant: string }[];
  /** One-week `from`/`to` windows inside the seeded span, newest first. */
  windows: { from: string; to: string }[];
};

type Manifest = {
  version: number;
  sizes: Pick<Sizes, 'customers' | 'assistantsPerCustomer' | 'keysPerCustomer' | 'calls' | 'deepCalls'> & {
    outbound: number;
  };
  seededAt: string;
  seededSeconds: number;
};

const MANIFEST_VERSION = 1;
const SEED_TIMEOUT_MS = 30 * 60_000;

const manifestOf = (s: Sizes, seededAt: string, seededSeconds: number): Manifest => ({
  version: MANIFEST_VERSION,
  sizes: {
    customers: s.customers,
    assistantsPerCustomer: s.assistantsPerCustomer,
    keysPerCustomer: s.keysPerCustomer,
    calls: s.calls,
    deepCalls: s.deepCalls,
    outbound: s.outboundCustomers * s.outboundKeysPerCustomer,
  },
  seededAt,
  seededSeconds,
});

const readKeys = (file: string): SeededKey[] => JSON.parse(fs.readFileSync(file, 'utf8')) as SeededKey[];

async function seed(backend: Backend, args: string[], keysFile: string): Promise<void> {
  const done = await runCommand(
    process.execPath,
    [MAIN_TS, 'seed', ...args, '--rate-limit', '600', '--keys-file', keysFile, '--json'],
    { env: backend.env(), timeoutMs: SEED_TIMEOUT_MS },
  );
  if (done.code !== 0) throw new Error(`seed ${args.join(' ')} failed:\n${done.stderr}`);
}

/** Reuses the cached data set when it matches `sizes` and is still in the database; else seeds it. */
export async function ensureDataset(
  backend: Backend,
  sizes: Sizes,
  opts: { reseed: boolean; log: (line: string) => void },
): Promise<Fixture> {
  const manifestFile = path.join(backend.dir, 'manifest.json');
  const files = {
    main: path.join(backend.dir, 'keys-main.json'),
    deep: path.join(backend.dir, 'keys-deep.json'),
    outbound: path.join(backend.dir, 'keys-outbound.json'),
  };
  const wanted = manifestOf(sizes, '', 0);
  let manifest: Manifest | null = null;
  if (!opts.reseed && fs.existsSync(manifestFile) && Object.values(files).every((f) => fs.existsSync(f))) {
    const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
    if (m.version === wanted.version && JSON.stringify(m.sizes) === JSON.stringify(wanted.sizes))
      manifest = m;
  }
  // One open of the database serves the check and the fixture (opening PGlite takes a while).
  let open: DatabaseHandle | null = manifest ? await backend.open() : null;
  if (open && !(await stillThere(open.db, files, sizes))) {
    manifest = null;
    await open.close();
    open = null;
  }
  let seededSeconds: number | null = null;
  if (!manifest) {
    opts.log(`seeding the ${sizes.label} data set on ${backend.name} (cached for later runs)…`);
    const began = performance.now();
    await backend.reset();
    fs.rmSync(manifestFile, { force: true });
    const s = sizes;
    const common = ['--assistants-per-customer', String(s.assistantsPerCustomer)];
    await seed(
      backend,
      [...common, '--customers', String(s.customers), '--calls', String(s.calls)].concat([
        '--keys-per-customer',
        String(s.keysPerCustomer),
      ]),
      files.main,
    );
    await seed(
      backend,
      [...common, '--customers', '1', '--calls', String(s.deepCalls), '--keys-per-customer', '2'],
      files.deep,
    );
    await seed(
      backend,
      [...common, '--customers', String(s.outboundCustomers), '--calls', '0'].concat([
        '--keys-per-customer',
        String(s.outboundKeysPerCustomer),
      ]),
      files.outbound,
    );
    const seededAt = new Date().toISOString();
    await afterSeed(backend, readKeys(files.outbound));
    seededSeconds = Math.round((performance.now() - began) / 100) / 10;
    manifest = manifestOf(sizes, seededAt, seededSeconds);
    fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    opts.log(`seeded in ${seededSeconds} s`);
  }
  return loadFixture(open ?? (await backend.open()), files, manifest, seededSeconds);
}

/** The manifest can outlive its database (dropped by hand): check the rows are still there. */
async function stillThere(db: Database, files: Record<'deep', string>, sizes: Sizes): Promise<boolean> {
  const deep = readKeys(files.deep)[0];
  if (!deep) return false;
  const { rows } = await sql<{ n: string }>`
    select count(*)::text as n from calls where customer_id = ${deep.customer_id}::uuid`
    .execute(db)
    .catch(() => ({ rows: [{ n: '0' }] }));
  return Number(rows[0]?.n ?? 0) >= sizes.deepCalls;
}

/**
 * Statistics for the planner, index-only scans for `page`, and spend caps out of the way of scenario 5 (the key's
 * cap and its customer's largest cap: a key is held to the lower).
 */
async function afterSeed(backend: Backend, outboundKeys: SeededKey[]): Promise<void> {
  const handle = await backend.open();
  try {
    // The cap is still checked on every call (scenario 5 measures that check); it just never refuses.
    await sql`update api_keys set daily_spend_cap_usd = 1000000
      where id = any(${outboundKeys.map((k) => k.key_id)}::uuid[])`.execute(handle.db);
    await sql`update customers set outbound_max_daily_cap_usd = 1000000
      where id = any(${[...new Set(outboundKeys.map((k) => k.customer_id))]}::uuid[])`.execute(handle.db);
    await sql`vacuum analyze`.execute(handle.db);
    // The seed's dirty pages written now rather than by the next timed checkpoint, which spreads them over the
    // minutes after it: a quick run right after seeding read GET /calls on PostgreSQL at 0.57 of its floor,
    // against 0.72 and 0.85 on a data set seeded earlier (docs/performance.md, the nineteenth section).
    await sql`checkpoint`.execute(handle.db);
  } finally {
    await handle.close();
  }
}

async function loadFixture(
  handle: DatabaseHandle,
  files: Record<'main' | 'deep' | 'outbound', string>,
  manifest: Manifest,
  seededSeconds: number | null,
): Promise<Fixture> {
  const main = readKeys(files.main);
  const [deep] = readKeys(files.deep);
  const outbound = readKeys(files.outbound);
  if (!deep) throw new Error('no key for the large customer');
  const customers = [...new Set([...main, ...outbound].map((k) => k.customer_id))];
  const byCustomer = new Map<string, string[]>();
  try {
    const rows = await handle.db
      .selectFrom('assistants')
      .select(['id', 'customer_id'])
      .where('customer_id', 'in', customers)
      .orderBy('created_at', 'desc')
      .execute();
    for (const r of rows) byCustomer.set(r.customer_id, [...(byCustomer.get(r.customer_id) ?? []), r.id]);
  } finally {
    await handle.close();
  }
  const assistantsOf = (customerId: string) => {
    const list = byCustomer.get(customerId);
    if (!list?.length) throw new Error(`customer ${customerId} has no assistant`);
    return list;
  };
  const end = Date.parse(manifest.seededAt);
  const week = 7 * 86_400_000;
  return {
    seededAt: manifest.seededAt,
    seededSeconds,
    main: main.map((k) => ({
      key: k.secret,
      keyId: k.key_id,
      customerId: k.customer_id,
      assistants: assistantsOf(k.customer_id),
    })),
    deep: {
      key: deep.secret,
      keyId: deep.key_id,
      customerId: deep.customer_id,
      calls: manifest.sizes.deepCalls,
    },
    outbound: outbound.map((k) => ({
      key: k.secret,
      keyId: k.key_id,
      customerId: k.customer_id,
      assistant: assistantsOf(k.customer_id)[0] ?? '',
    })),
    windows: Array.from({ length: 12 }, (_, i) => ({
      from: new Date(end - (i + 1) * week).toISOString(),
      to: new Date(end - i * week).toISOString(),
    })),
  };
}

/**
 * Removes what scenario 5 added to the cached data set: its outbound calls (with their events, lifecycle, spend and
 * provider rows) and idempotency keys. Their lifecycle goes on after the run (the simulator ends each call minutes
 * later, then post-processing records its summary), so a later service start would finish that work while it is
 * being measured: a profile of scenario 2 found a fifth of the service's CPU in it, and the floors do none of it.
 * Every run then measures the data set as seeded. Returns how many calls were removed.
 */
export async function forgetOutboundCalls(backend: Backend, fixture: Fixture): Promise<number> {
  const customers = [...new Set(fixture.outbound.map((k) => k.customerId))];
  const handle = await backend.open();
  try {
    const removed = await handle.db.transaction().execute(async (tx) => {
      await sql`delete from simulator_calls where call_id in (
        select id::text from calls where customer_id = any(${customers}::uuid[]))`.execute(tx);
      await sql`delete from idempotency_keys where customer_id = any(${customers}::uuid[])`.execute(tx);
      const { rows } = await sql<{ n: string }>`with gone as (
        delete from calls where customer_id = any(${customers}::uuid[]) returning 1)
        select count(*)::text as n from gone`.execute(tx);
      return Number(rows[0]?.n ?? 0);
    });
    if (removed > 0) await sql`vacuum analyze`.execute(handle.db);
    return removed;
  } finally {
    await handle.close();
  }
}
