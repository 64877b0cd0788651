import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REDIS_RETRY_AFTER_MS } from '../src/rate-limit/redis.ts';
import { newCustomer, startTestApp, type TestApp } from '../src/testing/test-app.ts';
import { testDatabaseUrlForChild } from '../src/testing/test-database.ts';
import { type Client, type Outcome, serviceClient, sleep, until } from './lib/client.ts';
import { figure, rememberSecret, saveLogs } from './lib/collector.ts';
import { hostPort, needsBoth, REDIS_URL, SERVER_SECRET, via } from './lib/env.ts';
import { codeOf, problemDefect } from './lib/problem.ts';
import { childTls, type ServiceProcess, startService } from './lib/service-process.ts';
import { type OutageMode, startTcpProxy, type TcpProxy } from './lib/tcp-proxy.ts';

const SECTION = "Redis outage (decision: this instance counts on top of Redis's last counts)";
const WHOAMI = '/api/v1/auth/whoami';
/** No answer may take longer than this while Redis is away. */
const ANSWER_BOUND_MS = 3_000;

describe('Redis down or restarted', { skip: needsBoth }, () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let api: ServiceProcess;
  let client: Client;

  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    const database = testDatabaseUrlForChild();
    assert.ok(database && REDIS_URL);
    proxy = await startTcpProxy(hostPort(REDIS_URL, 6379));
    api = await startService({
      command: 'serve',
      name: 'redis-outage-api',
      env: { DATABASE_URL: database, REDIS_URL: via(REDIS_URL, proxy.address), SERVER_SECRET },
    });
    assert.ok(api.url);
    client = serviceClient(api.url, (await childTls()).cert);
  });

  after(async () => {
    proxy?.restore();
    await client?.close();
    await api?.kill();
    await proxy?.close();
    saveLogs('redis-outage-testapp', t?.logs ?? []);
    await t?.close();
  });

  /** Redis reachable again and the limiter back on it (it skips Redis for a while after a failure). */
  async function sharedAgain(): Promise<boolean> {
    const ready = await until(async () => (await client.send('GET', '/readyz')).status === 200, 15);
    await sleep(REDIS_RETRY_AFTER_MS + 250);
    return ready;
  }

  async function burst(key: string, n: number): Promise<Outcome[]> {
    const out: Outcome[] = [];
    for (let i = 0; i < n; i++)
      out.push(await client.send('GET', WHOAMI, { key, boundMs: ANSWER_BOUND_MS + 5_000 }));
    return out;
  }

  for (const mode of ['reset', 'stall'] as OutageMode[]) {
    const label = mode === 'reset' ? 'restart' : 'partition';
    it(`${label}: the service keeps answering, limits on top of what Redis held, and goes back to the shared window`, async () => {
      assert.ok(await sharedAgain());
      const c = await newCustomer(t);
      rememberSecret('api_key', c.key);
      const shared = await burst(c.key, 30);
      assert.ok(shared.every((r) => r.status === 200));
      assert.equal(shared.at(-1)?.headers['x-ratelimit-remaining'], '30');

      proxy.cut(mode);
      let during: Outcome[];
      let ready: Outcome;
      try {
        during = await burst(c.key, 61);
        ready = await client.send('GET', '/readyz', { boundMs: ANSWER_BOUND_MS + 5_000 });
      } finally {
        proxy.restore();
      }
      const slowest = Math.max(...during.map((r) => r.ms));
      const admitted = during.filter((r) => r.status === 200).length;
      const last = during.at(-1);
      figure({
        section: SECTION,
        name: `${label}: requests answered during the outage`,
        value: `${during.filter((r) => r.status > 0).length} of ${during.length}`,
        bound: 'all',
        ok: during.every((r) => r.status > 0),
      });
      figure({
        section: SECTION,
        name: `${label}: slowest answer during the outage`,
        value: slowest,
        unit: 'ms',
        bound: `≤ ${ANSWER_BOUND_MS}`,
        ok: slowest <= ANSWER_BOUND_MS,
      });
      figure({
        section: SECTION,
        name: `${label}: admitted by the instance on top of the 30 Redis held (limit 60)`,
        value: `${admitted}, then ${last?.status} ${codeOf(last?.body) ?? ''}`,
        bound: '30, then 429',
        ok: admitted === 30 && last?.status === 429,
      });
      assert.equal(api.exit(), null, 'the API process lives');
      assert.ok(
        during.every((r) => r.status > 0),
        'every request answered',
      );
      assert.ok(slowest <= ANSWER_BOUND_MS, `slowest ${slowest} ms`);
      // The instance counts on top of the 30 Redis said the windows held, never from empty: 60 in the minute.
      assert.equal(admitted, 30);
      assert.equal(last?.status, 429);
      assert.equal(problemDefect({ ...(last as Outcome) }), null);
      assert.equal(ready.status, 503, 'readiness tells the operator');

      // Back to the shared window: the 30 counted in Redis before the outage are still there.
      const back = await sharedAgain();
      assert.ok(back, 'Redis reconnected by itself');
      const c2 = await newCustomer(t);
      rememberSecret('api_key', c2.key);
      const afterwards = await burst(c2.key, 2);
      assert.equal(afterwards[1]?.headers['x-ratelimit-remaining'], '58');
      const again = await client.send('GET', WHOAMI, { key: c.key });
      // After a partition, the commands that timed out on our side still reach Redis when the link heals
      // (TCP delivers them), so the shared window may hold a few more than the 30 of before.
      const remaining = Number(again.headers['x-ratelimit-remaining']);
      const isShared = mode === 'reset' ? remaining === 29 : remaining <= 29 && remaining >= 25;
      figure({
        section: SECTION,
        name: `${label}: after recovery, the pre-outage customer (30 counted in Redis)`,
        value: `${again.status}, remaining ${remaining}`,
        bound: mode === 'reset' ? '200, remaining 29' : '200, remaining ≤ 29',
        ok: again.status === 200 && isShared,
      });
      assert.ok(isShared, `the shared window again, not the memory one (remaining ${remaining})`);
    });
  }
});
