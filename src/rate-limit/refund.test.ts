import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createLogger } from '../logger.ts';
import { type RateLimiter, WINDOW_MS } from './interface.ts';
import { createMemoryLimiter } from './memory.ts';
import { createRedisLimiter } from './redis.ts';

const REDIS_URL = process.env.REDIS_URL;
const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function refundContract(name: string, make: () => RateLimiter, skip: string | false = false) {
  describe(`${name} limiter: refund`, { skip }, () => {
    const bucket = () => ({ key: `refund:${randomBytes(4).toString('hex')}`, limit: 2 });

    it('takes back one counted request in every bucket: its slot is free again, the others stay counted', async () => {
      const limiter = make();
      const a = bucket();
      const b = bucket();
      await limiter.hit([a, b], T0, 'r1');
      await limiter.hit([a, b], T0, 'r2');
      assert.equal((await limiter.hit([a, b], T0, 'r3')).allowed, false, 'full before the refund');
      await limiter.refund([a, b], T0, 'r1');
      assert.deepEqual(
        [(await limiter.peek(a, T0)).remaining, (await limiter.peek(b, T0)).remaining],
        [1, 1],
        'exactly one slot freed in each bucket',
      );
      assert.equal((await limiter.hit([a, b], T0, 'r4')).allowed, true);
      assert.equal((await limiter.hit([a, b], T0, 'r5')).allowed, false, 'no second slot appeared');
      await limiter.close();
    });

    it('takes back the request it names, not another one still in the window', async () => {
      const limiter = make();
      const a = bucket();
      await limiter.hit([a], T0, 'early');
      await limiter.hit([a], at(1_000), 'late');
      await limiter.refund([a], T0, 'early');
      // Past the early request's window, inside the late one's: only the late request can still count.
      assert.equal((await limiter.peek(a, at(WINDOW_MS + 500))).remaining, 1);
      await limiter.close();
    });
  });
}

refundContract('in-memory', createMemoryLimiter);

const clients: Redis[] = [];
refundContract(
  'Redis',
  () => {
    const client = new Redis(REDIS_URL ?? '', { maxRetriesPerRequest: 1 });
    clients.push(client);
    return createRedisLimiter(client, createLogger('silent'), 'test:refund:');
  },
  REDIS_URL ? false : 'set REDIS_URL to run',
);
after(async () => {
  const keys = await clients[0]?.keys('test:refund:*');
  if (keys?.length) await clients[0]?.del(...keys);
  for (const c of clients) c.disconnect();
});
