import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createLogger } from '../logger.ts';
import type { RateLimiter } from './interface.ts';
import { createMemoryLimiter } from './memory.ts';
import { createRedisLimiter } from './redis.ts';

const REDIS_URL = process.env.REDIS_URL;
const T0 = new Date('2026-01-01T00:00:00.000Z');

function gateContract(name: string, make: () => RateLimiter, skip: string | false = false) {
  describe(`${name} limiter: gates are looked at, never counted`, { skip }, () => {
    const gate = { key: `gate:${randomBytes(4).toString('hex')}`, limit: 2 };
    const counted = { key: `counted:${randomBytes(4).toString('hex')}`, limit: 5 };

    it('admits while the gate has room, counting only the other buckets; refuses with the gate first', async () => {
      const limiter = make();
      const hit = await limiter.hit([counted], T0, 'r1', [gate]);
      assert.equal(hit.allowed, true);
      assert.deepEqual(
        hit.states.map((s) => s.remaining),
        [2, 4],
        'gate state first and untouched',
      );
      await limiter.hit([gate], T0, 'g1');
      await limiter.hit([gate], T0, 'g2');
      const refused = await limiter.hit([counted], T0, 'r2', [gate]);
      assert.deepEqual([refused.allowed, refused.blockedIndex], [false, 0]);
      assert.equal((await limiter.peek(counted, T0)).remaining, 4, 'a refused request is counted nowhere');
      await limiter.close();
    });
  });
}

gateContract('in-memory', createMemoryLimiter);

const clients: Redis[] = [];
gateContract(
  'Redis',
  () => {
    const client = new Redis(REDIS_URL ?? '', { maxRetriesPerRequest: 1 });
    clients.push(client);
    return createRedisLimiter(client, createLogger('silent'), 'test:gates:');
  },
  REDIS_URL ? false : 'set REDIS_URL to run',
);
after(async () => {
  const keys = await clients[0]?.keys('test:gates:*');
  if (keys?.length) await clients[0]?.del(...keys);
  for (const c of clients) c.disconnect();
});
