import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ManualClock } from '../clock.ts';
import { createLogger } from '../logger.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import type { BucketState, HitResult } from './interface.ts';
import { createRedisLimiter, REDIS_CLIENT_OPTIONS } from './redis.ts';

const REDIS_URL = process.env.REDIS_URL;
const quiet = createLogger('silent');

describe('Redis-backed limiter shared by two instances', {
  skip: REDIS_URL ? false : 'set REDIS_URL to run',
}, () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  const clock = new ManualClock(new Date());
  let a: TestApp;
  let b: TestApp;
  const clients: Redis[] = [];
  // The service's own client options (auto-pipelining, no offline queue), so the tests run what production runs.
  const limiter = async () => {
    const client = new Redis(REDIS_URL ?? '', REDIS_CLIENT_OPTIONS);
    clients.push(client);
    await new Promise((resolve) => client.once('ready', resolve));
    return createRedisLimiter(client, quiet, prefix);
  };
  before(async () => {
    a = await startTestApp({ clock, limiter: await limiter() });
    b = await startTestApp({ clock, limiter: await limiter() });
  });
  after(async () => {
    await a.close();
    await b.close();
    const keys = await clients[0]?.keys(`${prefix}*`);
    if (keys?.length) await clients[0]?.del(...keys);
    for (const c of clients) c.disconnect();
  });

  it('together the two instances admit exactly the limit, even when requests race', async () => {
    const c = await newCustomer(a);
    const responses = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        (i % 2 ? a : b).request('GET', '/api/v1/auth/whoami', { key: c.key }),
      ),
    );
    const admitted = responses.filter((r) => r.status === 200).length;
    assert.equal(admitted, 60);
    assert.ok(responses.filter((r) => r.status === 429).every((r) => r.headers['retry-after'] === '60'));
  });

  it('keeps counting in Redis after the script cache is flushed (pipelined scripts reload)', async () => {
    const c = await newCustomer(a);
    await clients[0]?.script('FLUSH');
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () => a.request('GET', '/api/v1/auth/whoami', { key: c.key })),
    );
    assert.deepEqual(
      statuses.map((r) => r.status),
      Array(5).fill(200),
    );
    assert.equal(
      await clients[0]?.zcard(`${prefix}key:${c.keyId}`),
      5,
      'counted in Redis, not in the fallback',
    );
  });

  it('checks of different shapes that share one batch are each judged in order, as if sent one by one', async () => {
    const l = await limiter();
    const at = new Date();
    const small = { key: `small:${randomBytes(4).toString('hex')}`, limit: 2 };
    const wide = { key: `wide:${randomBytes(4).toString('hex')}`, limit: 10 };
    const gate = { key: `gate:${randomBytes(4).toString('hex')}`, limit: 1 };
    // Issued in one turn of the event loop: they go out together.
    const results = await Promise.all([
      l.hit([small, wide], at, 'a'),
      l.hit([wide], at, 'b', [gate]),
      l.hit([small], at, 'c'),
      l.peek(wide, at),
      l.hit([small, wide], at, 'd'),
      l.hit([wide], at, 'e'),
    ]);
    const [a, b, c, peeked, d, e] = results as [
      HitResult,
      HitResult,
      HitResult,
      BucketState,
      HitResult,
      HitResult,
    ];
    assert.deepEqual(
      [a, b, c, d, e].map((r) => r.allowed),
      [true, true, true, false, true],
    );
    assert.deepEqual(
      a.states.map((s) => s.remaining),
      [1, 9],
    );
    assert.deepEqual(
      b.states.map((s) => s.remaining),
      [1, 8],
      'the gate looked at, never counted',
    );
    assert.deepEqual(
      c.states.map((s) => s.remaining),
      [0],
    );
    assert.equal(peeked.remaining, 8);
    assert.equal(d.blockedIndex, 0, 'refused by the full small bucket, counted in neither');
    assert.deepEqual(
      e.states.map((s) => s.remaining),
      [7],
    );
    assert.equal(await clients[0]?.zcard(`${prefix}${wide.key}`), 3);
    assert.equal(await clients[0]?.exists(`${prefix}${gate.key}`), 0);
  });

  it('a slot freed by time is visible to both instances', async () => {
    const c = await newCustomer(a);
    for (let i = 0; i < 60; i++) await (i % 2 ? a : b).request('GET', '/api/v1/auth/whoami', { key: c.key });
    assert.equal((await a.request('GET', '/api/v1/auth/whoami', { key: c.key })).status, 429);
    clock.advance(60_000);
    assert.equal((await b.request('GET', '/api/v1/auth/whoami', { key: c.key })).status, 200);
  });
});

describe('Redis unreachable', () => {
  it('falls back to the in-memory limiter: the service keeps answering and still limits (fail open to per-instance)', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    const warnings: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => warnings.push(line) });
    const t = await startTestApp({ limiter: createRedisLimiter(dead, logger) });
    try {
      const c = await newCustomer(t);
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++)
        statuses.push((await t.request('GET', '/api/v1/auth/whoami', { key: c.key })).status);
      assert.deepEqual(statuses.slice(0, 60), Array(60).fill(200));
      assert.equal(statuses[60], 429);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] ?? '', /"event":"redis_unreachable".*Redis unreachable/);
    } finally {
      await t.close();
      dead.disconnect();
    }
  });
});
