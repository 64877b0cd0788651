import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createLogger } from '../logger.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { createMemoryLimiter } from './memory.ts';
import { createRedisLimiter, REDIS_CLIENT_OPTIONS } from './redis.ts';

/**
 * A Redis that accepts the connection and then never answers (a partition, a frozen server): the case a
 * refused connection does not cover, because every command waits for a reply that does not come.
 */
describe('Redis that stops answering', () => {
  let silent: net.Server;
  let port = 0;
  let redis: Redis;
  let t: TestApp;
  before(async () => {
    silent = net.createServer((socket) => socket.on('error', () => {}));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as net.AddressInfo).port;
    // No ready check: connected as soon as TCP is, like a Redis that froze after the service connected.
    redis = new Redis(`redis://127.0.0.1:${port}`, { ...REDIS_CLIENT_OPTIONS, enableReadyCheck: false });
    redis.on('error', () => {});
    t = await startTestApp({
      limiter: createRedisLimiter(redis, createMemoryLimiter(), createLogger('silent')),
    });
  });
  after(async () => {
    await t.close();
    redis.disconnect();
    silent.close();
  });

  it('requests are answered (the command times out, then the fallback is used at once) and still limited', async () => {
    const c = await newCustomer(t);
    const statuses: number[] = [];
    const started = performance.now();
    for (let i = 0; i < 61; i++)
      statuses.push((await t.request('GET', '/api/v1/auth/whoami', { key: c.key })).status);
    const elapsed = performance.now() - started;
    assert.deepEqual(statuses.slice(0, 60), Array(60).fill(200));
    assert.equal(statuses[60], 429, 'fail open to per-instance limits, not to no limit');
    // One command timeout for the whole series, not one per request (61 × 500 ms would be half a minute).
    assert.ok(elapsed < 15_000, `61 requests took ${Math.round(elapsed)} ms`);
  });
});
