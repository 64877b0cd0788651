import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newCustomer, startTestApp, type TestApp } from '../src/testing/test-app.ts';
import { testDatabaseUrlForChild } from '../src/testing/test-database.ts';
import { callFor } from '../src/testing/webhook.fixtures.ts';
import { type Client, percentile, serviceClient, sleep, until } from './lib/client.ts';
import { figure, rememberSecret, saveLogs } from './lib/collector.ts';
import { DATABASE_URL, hostPort, needsPostgres, SERVER_SECRET, via } from './lib/env.ts';
import { type LoadUser, startLoad } from './lib/load.ts';
import { codeOf, problemDefect } from './lib/problem.ts';
import { childTls, type ServiceProcess, startService } from './lib/service-process.ts';
import { type OutageMode, startTcpProxy, type TcpProxy } from './lib/tcp-proxy.ts';

const SECTION = 'PostgreSQL outage';
/** No request may wait longer than this for its answer, outage or not. */
const ANSWER_BOUND_MS = 8_000;
/** The service must serve again by itself this soon after the database is back. */
const RECOVERY_BOUND_MS = 10_000;
const USERS = 8;
const QUERY_TIMEOUT_MS = 3_000;

describe('PostgreSQL restarted under load', { skip: needsPostgres }, () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let api: ServiceProcess;
  let client: Client;
  let users: LoadUser[];

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    const childUrl = testDatabaseUrlForChild();
    assert.ok(childUrl && DATABASE_URL);
    proxy = await startTcpProxy(hostPort(DATABASE_URL, 5432));
    api = await startService({
      command: 'serve',
      name: 'pg-outage-api',
      env: {
        DATABASE_URL: via(childUrl, proxy.address),
        SERVER_SECRET,
        WEBHOOK_MAX_SUBSCRIPTIONS: '1000',
        // Short, so the partition below outlasts it; production default is 30 s (docs/reliability.md).
        DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      },
    });
    const { cert } = await childTls();
    assert.ok(api.url);
    client = serviceClient(api.url, cert);
    users = [];
    for (let u = 0; u < USERS; u++) {
      const c = await newCustomer(t, { rateLimitPerMinute: 600, keyRateLimitPerMinute: 600 });
      rememberSecret('api_key', c.key);
      await callFor(t, c.customerId, u + 1);
      let n = 0;
      users.push({
        key: c.key,
        next: (i) => {
          switch (i % 4) {
            case 0:
              return { name: 'GET /auth/whoami', method: 'GET', path: '/api/v1/auth/whoami' };
            case 1:
              return { name: 'GET /calls', method: 'GET', path: '/api/v1/calls?limit=5' };
            case 2:
              return { name: 'GET /assistants', method: 'GET', path: '/api/v1/assistants' };
            default:
              n += 1;
              return {
                name: 'POST /webhook-subscriptions',
                method: 'POST',
                path: '/api/v1/webhook-subscriptions',
                body: { url: `https://hooks.example.com/${c.customerId}/${n}`, events: ['call.completed'] },
                write: true,
              };
          }
        },
      });
    }
  });

  after(async () => {
    proxy?.restore();
    await client?.close();
    await api?.kill();
    await proxy?.close();
    saveLogs('pg-outage-testapp', t?.logs ?? []);
    await t?.close();
  });

  async function outage(mode: OutageMode, outageMs: number) {
    let phase = 'before';
    const load = startLoad(client, users, {
      pauseMs: 60,
      boundMs: ANSWER_BOUND_MS + 7_000,
      maxRequests: 2_000,
      phase: () => phase,
    });
    await sleep(2_000);
    phase = 'outage';
    proxy.cut(mode);
    const cutAt = Date.now();
    await sleep(outageMs);
    phase = 'recovering';
    proxy.restore();
    const restoredAt = Date.now();
    const recovered = await until(
      () => load.samples.some((s) => s.startedAt >= restoredAt && s.status >= 200 && s.status < 300),
      RECOVERY_BOUND_MS / 1000 + 5,
    );
    const firstOk = load.samples
      .filter((s) => s.startedAt >= restoredAt && s.status >= 200 && s.status < 300)
      .reduce((min, s) => Math.min(min, s.startedAt + s.ms), Number.POSITIVE_INFINITY);
    await sleep(1_000);
    phase = 'after';
    await sleep(2_000);
    await load.stop();
    return { samples: load.samples, cutAt, restoredAt, recovered, recoveryMs: firstOk - restoredAt };
  }

  async function check(mode: OutageMode, run: Awaited<ReturnType<typeof outage>>) {
    const { samples } = run;
    const during = samples.filter((s) => s.phase === 'outage');
    const afterwards = samples.filter((s) => s.phase === 'after');
    const unanswered = samples.filter((s) => s.status === 0);
    const slowest = Math.max(0, ...samples.map((s) => s.ms));
    const badProblems = samples
      .filter((s) => s.status >= 400)
      .map((s) => ({ s, defect: problemDefect(s) }))
      .filter((x) => x.defect !== null);
    const serverErrors = during.filter((s) => s.status >= 500);
    const codes = new Map<string, number>();
    for (const s of during) {
      const key = `${s.status} ${codeOf(s.body) ?? ''}`.trim();
      codes.set(key, (codes.get(key) ?? 0) + 1);
    }
    const accepted = samples.filter((s) => s.write && s.status === 201);
    const acceptedIds = accepted.map((s) => String((s.body as { id: string }).id));
    const stored = acceptedIds.length
      ? await t.db
          .selectFrom('webhook_subscriptions')
          .select('id')
          .where('id', 'in', acceptedIds)
          .where('deleted_at', 'is', null)
          .execute()
      : [];
    const lost = acceptedIds.length - stored.length;
    const afterErrors = afterwards.filter((s) => s.status < 200 || s.status >= 300).length;

    const label = mode === 'reset' ? 'restart (connections reset)' : 'partition (connections stall)';
    figure({ section: SECTION, name: `${label}: requests`, value: samples.length });
    figure({ section: SECTION, name: `${label}: requests during outage`, value: during.length });
    figure({
      section: SECTION,
      name: `${label}: answers during outage`,
      value: [...codes].map(([k, v]) => `${k}×${v}`).join(', '),
    });
    figure({
      section: SECTION,
      name: `${label}: slowest answer`,
      value: slowest,
      unit: 'ms',
      bound: `≤ ${ANSWER_BOUND_MS}`,
      ok: slowest <= ANSWER_BOUND_MS && unanswered.length === 0,
    });
    figure({
      section: SECTION,
      name: `${label}: p99 during outage`,
      value: percentile(
        during.map((s) => s.ms),
        99,
      ),
      unit: 'ms',
    });
    figure({
      section: SECTION,
      name: `${label}: recovery after restore`,
      value: Number.isFinite(run.recoveryMs) ? run.recoveryMs : 'never',
      unit: 'ms',
      bound: `≤ ${RECOVERY_BOUND_MS}`,
      ok: run.recovered && run.recoveryMs <= RECOVERY_BOUND_MS,
    });
    figure({ section: SECTION, name: `${label}: writes accepted`, value: accepted.length });
    figure({
      section: SECTION,
      name: `${label}: accepted writes lost`,
      value: lost,
      bound: '= 0',
      ok: lost === 0,
    });
    figure({
      section: SECTION,
      name: `${label}: errors after recovery`,
      value: afterErrors,
      bound: '= 0',
      ok: afterErrors === 0,
    });

    assert.equal(api.exit(), null, `the API process died: ${api.output().slice(-2000)}`);
    assert.deepEqual(
      unanswered.map((s) => `${s.op}: ${s.error}`),
      [],
      'every request is answered',
    );
    assert.ok(slowest <= ANSWER_BOUND_MS, `slowest answer ${slowest} ms`);
    assert.deepEqual(
      badProblems.map((x) => `${x.s.op} ${x.s.status}: ${x.defect}`),
      [],
      'every error is a valid problem',
    );
    assert.ok(during.length > 0, 'load ran during the outage');
    assert.ok(serverErrors.length > 0, 'the outage was felt');
    assert.deepEqual(
      serverErrors
        .filter((s) => codeOf(s.body) !== 'service.unavailable')
        .map((s) => `${s.op} ${s.status} ${codeOf(s.body)}`),
      [],
      'an unreachable database is 503 service.unavailable, not an internal error',
    );
    assert.ok(run.recovered, 'the service recovered by itself');
    assert.ok(run.recoveryMs <= RECOVERY_BOUND_MS, `recovered in ${run.recoveryMs} ms`);
    assert.equal(lost, 0, 'no accepted write is lost');
    assert.equal(afterErrors, 0, 'every request after recovery succeeds');
  }

  it('a restart (connections reset, then refused): fast 503s, recovery by itself, no accepted write lost', async () => {
    const run = await outage('reset', 5_000);
    await check('reset', run);
  });

  it('a partition (no byte moves): answers within the bound, recovery by itself, no accepted write lost', async () => {
    const run = await outage('stall', 10_000);
    await check('stall', run);
  });

  it('readiness reports the database while it is away, and recovers', async () => {
    proxy.cut('reset');
    try {
      const down = await client.send('GET', '/readyz', { boundMs: ANSWER_BOUND_MS });
      assert.equal(down.status, 503);
      assert.equal(codeOf(down.body), 'service.unavailable');
      assert.equal((await client.send('GET', '/healthz')).status, 200, 'alive all the same');
    } finally {
      proxy.restore();
    }
    assert.ok(await until(async () => (await client.send('GET', '/readyz')).status === 200, 10));
  });
});
