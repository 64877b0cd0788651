import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { SCOPES } from '../src/keys/scopes.ts';
import { createLogger } from '../src/logger.ts';
import { openRuntime } from '../src/runtime.ts';
import { ANSWERS, BUSY, NO_ANSWER } from '../src/testing/outbound.fixtures.ts';
import { startReceiver } from '../src/testing/receiver.ts';
import { testDatabase } from '../src/testing/test-database.ts';
import { type Client, serviceClient, until } from './lib/client.ts';
import { figure, rememberSecret } from './lib/collector.ts';
import { needsPostgres, SERVER_SECRET } from './lib/env.ts';
import { childTls, type ServiceProcess, startService } from './lib/service-process.ts';

const SECTION = 'Restart: calls in flight at a SIGTERM or a SIGKILL';
/** Three of each simulator outcome: answered (talks 17–42 s after answering at 4–13 s), no answer (31 s), busy. */
const NUMBERS = [ANSWERS, ANSWERS, ANSWERS, NO_ANSWER, NO_ANSWER, NO_ANSWER, BUSY, BUSY, BUSY];
const EXPECTED: Record<string, string> = { [ANSWERS]: 'completed', [NO_ANSWER]: 'no_answer', [BUSY]: 'busy' };
/** The longest simulated call (55 s), post-processing and delivery, with room for a busy machine. */
const SETTLE_SECONDS = 120;
const TERMINAL = new Set(['completed', 'no_answer', 'busy', 'failed', 'canceled']);

type Setup = { env: Record<string, string>; instances: number; kill: 'SIGTERM' | 'SIGKILL'; name: string };

/** A customer with a key and an assistant, made through the service's own runtime on the storage the children use. */
async function seed(env: Record<string, string>) {
  const { certFile, keyFile } = await childTls();
  const config = loadConfig({
    ...env,
    SERVER_SECRET,
    TLS_CERT_FILE: certFile,
    TLS_KEY_FILE: keyFile,
    DATA_DIR: env.DATA_DIR ?? tmpdir(),
  });
  const runtime = await openRuntime(config, systemClock, createLogger('silent'));
  try {
    const customer = await runtime.services.customers.createCustomer({
      name: 'Restart',
      rateLimitPerMinute: 600,
    });
    const { secret } = await runtime.services.keys.createKey({
      customerId: customer.id,
      name: 'restart',
      scopes: SCOPES,
      rateLimitPerMinute: 600,
    });
    const assistant = await runtime.services.assistants.createAssistant({
      customerId: customer.id,
      name: 'Reminders',
      voiceId: 'orion',
      language: 'en-US',
      phoneNumbers: ['+14155550102'],
      isActive: true,
    });
    rememberSecret('api_key', secret);
    return { key: secret, assistantId: assistant.id };
  } finally {
    await runtime.close();
  }
}

/**
 * Places calls through real server processes, stops one mid-call (SIGTERM, or SIGKILL with another instance
 * still running), starts a new one on the same storage, and waits for every call to reach the status its
 * number decides and for its `call.completed` to reach the webhook receiver.
 */
async function restartScenario(s: Setup): Promise<void> {
  const receiver = await startReceiver();
  const { cert } = await childTls();
  const procs: ServiceProcess[] = [];
  const clients: Client[] = [];
  const start = async (n: number) => {
    const proc = await startService({
      command: 'serve',
      name: `${s.name}-${n}`,
      env: { ...s.env, SERVER_SECRET },
    });
    procs.push(proc);
    const client = serviceClient(proc.url ?? '', cert);
    clients.push(client);
    return { proc, client };
  };
  try {
    const { key, assistantId } = await seed(s.env);
    const first = await start(0);
    const others = [];
    for (let i = 1; i < s.instances; i++) others.push(await start(i));
    const sub = await first.client.send('POST', '/api/v1/webhook-subscriptions', {
      key,
      body: { url: `${receiver.url}/restart`, events: ['call.completed'] },
    });
    assert.equal(sub.status, 201, sub.text);
    rememberSecret('webhook_secret', String((sub.body as { secret: string }).secret));

    const calls: { id: string; to: string }[] = [];
    for (const to of NUMBERS) {
      const res = await first.client.send('POST', '/api/v1/outbound-calls', {
        key,
        body: { assistant_id: assistantId, to_number: to },
      });
      assert.equal(res.status, 201, res.text);
      calls.push({ id: String((res.body as { id: string }).id), to });
    }
    const statusOf = async (client: Client, id: string) =>
      String(
        ((await client.send('GET', `/api/v1/calls/${id}`, { key })).body as { status?: string })?.status,
      );
    // Stop it mid-call: once a call is talking, before any answered call can have ended.
    const talking = await until(
      async () => (await Promise.all(calls.map((c) => statusOf(first.client, c.id)))).includes('in_progress'),
      30,
      200,
    );
    assert.ok(talking, 'a call reached in_progress');
    const before = await Promise.all(calls.map((c) => statusOf(first.client, c.id)));
    const inFlight = before.filter((st) => !TERMINAL.has(st)).length;
    await first.proc.kill(s.kill);
    if (s.kill === 'SIGTERM') assert.equal(first.proc.exit()?.code, 0, 'a clean stop within its 10 s');
    const survivor = others[0] ?? (await start(s.instances));

    const completed = () =>
      new Set(
        receiver.received
          .map((r) => JSON.parse(r.body) as { event: string; data: { call_id: string } })
          .filter((b) => b.event === 'call.completed')
          .map((b) => b.data.call_id),
      );
    const done = await until(() => calls.every((c) => completed().has(c.id)), SETTLE_SECONDS, 250);
    const after = await Promise.all(calls.map((c) => statusOf(survivor.client, c.id)));
    figure({ section: SECTION, name: `${s.name}: calls in flight at the ${s.kill}`, value: inFlight });
    const delivered = calls.filter((c) => completed().has(c.id)).length;
    figure({
      section: SECTION,
      name: `${s.name}: call.completed delivered`,
      value: delivered,
      bound: `= ${calls.length}`,
      ok: delivered === calls.length,
    });
    assert.ok(inFlight > 0, 'some calls were in flight at the stop');
    assert.ok(done, `call.completed delivered for ${delivered} of ${calls.length}`);
    assert.deepEqual(
      after,
      calls.map((c) => EXPECTED[c.to]),
      'every call ends as the provider ended it (nothing taken as lost)',
    );
  } finally {
    for (const c of clients) await c.close();
    for (const p of procs) await p.kill('SIGKILL');
    await receiver.close();
  }
}

/**
 * A PostgreSQL schema of its own, so runs side by side do not drive each other's simulated calls (one schema is one
 * deployment). Named like the test schemas, so a later run sweeps it once this process is gone.
 */
async function schemaOfItsOwn(name: string): Promise<string> {
  const { db } = await testDatabase();
  const schema = `test_${process.pid}_${name}`;
  await sql.raw(`create schema ${schema}`).execute(db);
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

describe('calls in flight survive a restart of the server', { concurrency: true }, () => {
  it('on PGlite (data folder): SIGTERM mid-call, restart', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'reliability-restart-'));
    try {
      await restartScenario({
        name: 'restart-pglite',
        env: { DATA_DIR: dataDir },
        instances: 1,
        kill: 'SIGTERM',
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('on PostgreSQL: SIGTERM mid-call, restart', { skip: needsPostgres }, async () => {
    const url = await schemaOfItsOwn('restart');
    await restartScenario({
      name: 'restart-postgres',
      env: { DATABASE_URL: url },
      instances: 1,
      kill: 'SIGTERM',
    });
  });

  it('two instances on PostgreSQL: one SIGKILLed mid-call, the other finishes every call', {
    skip: needsPostgres,
  }, async () => {
    const url = await schemaOfItsOwn('two_instances');
    await restartScenario({
      name: 'restart-two-instances',
      env: { DATABASE_URL: url, RECONCILE_INTERVAL_SECONDS: '5' },
      instances: 2,
      kill: 'SIGKILL',
    });
  });
});
