import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Bucket, BucketState, HitResult, RateLimiter } from './interface.ts';
import { WINDOW_MS } from './interface.ts';
import { bucketState } from './sliding-window.ts';

// One atomic script per request: prune every bucket, admit only if all have room, then count the
// request in all of them but the first `gates` (only looked at). Sorted sets keyed by time make the
// window exact across instances.
// ARGV: now ms, window ms, member ('' = only look), gates, then one limit per key.
const SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local gates = tonumber(ARGV[4])
local allowed = 1
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  if redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[4 + i]) then allowed = 0 end
end
if allowed == 1 and member ~= '' then
  for i = gates + 1, #KEYS do
    redis.call('ZADD', KEYS[i], now, member)
    redis.call('PEXPIRE', KEYS[i], window)
  end
end
local out = { allowed }
for i = 1, #KEYS do
  local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  local newest = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  table.insert(out, redis.call('ZCARD', KEYS[i]))
  table.insert(out, oldest[2] or '')
  table.insert(out, newest[2] or '')
end
return out
`;

/**
 * How the service talks to Redis: fail fast rather than queue. `commandTimeout` matters most: a Redis that
 * stops answering without closing the connection (a partition, a frozen server) would otherwise hold every
 * request that counts against a window, forever.
 */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  // Scripts issued in the same event-loop turn (many requests under load) go out in one write.
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  commandTimeout: 500,
};

/** After Redis fails, requests go straight to the fallback this long before Redis is tried again. */
export const REDIS_RETRY_AFTER_MS = 5_000;

type SlidingRedis = Redis & {
  slidingWindow(keyCount: number, ...args: (string | number)[]): Promise<(number | string)[]>;
};

/**
 * The limiter shared by every instance through Redis. When Redis cannot be reached the request is
 * judged by this instance's in-memory limiter instead (fail open to per-instance limits, logged):
 * an outage of the cache must not take the API down with it.
 */
export function createRedisLimiter(
  redis: Redis,
  fallback: RateLimiter,
  logger: Logger,
  keyPrefix = 'rl:',
): RateLimiter {
  redis.defineCommand('slidingWindow', { lua: SCRIPT });
  const client = redis as SlidingRedis;
  let lastWarning = 0;
  // While Redis is failing, each request would otherwise wait for its own timeout before falling back.
  let skipUntil = 0;
  const available = () => Date.now() >= skipUntil;

  function warn(error: unknown) {
    const now = Date.now();
    skipUntil = now + REDIS_RETRY_AFTER_MS;
    if (now - lastWarning > 10_000) {
      lastWarning = now;
      logger.warn({ err: error }, 'Redis unreachable: rate limits fall back to this instance alone');
    }
  }

  async function run(buckets: Bucket[], nowMs: number, member: string, gates = 0) {
    const reply = await client.slidingWindow(
      buckets.length,
      ...buckets.map((b) => keyPrefix + b.key),
      nowMs,
      WINDOW_MS,
      member,
      gates,
      ...buckets.map((b) => b.limit),
    );
    const states: BucketState[] = buckets.map((b, i) => {
      const count = Number(reply[1 + i * 3]);
      const oldest = reply[2 + i * 3];
      const newest = reply[3 + i * 3];
      return bucketState(
        b.limit,
        count,
        oldest === '' ? null : Number(oldest),
        newest === '' ? null : Number(newest),
        nowMs,
      );
    });
    return { allowed: Number(reply[0]) === 1, states };
  }

  return {
    async hit(buckets, now, requestId, gates = []): Promise<HitResult> {
      if (!available()) return fallback.hit(buckets, now, requestId, gates);
      try {
        const { allowed, states } = await run([...gates, ...buckets], now.getTime(), requestId, gates.length);
        if (allowed) return { allowed, states, blockedIndex: -1 };
        // Refused: the states were read before counting, so the full bucket is the one at 0.
        return {
          allowed,
          states,
          blockedIndex: Math.max(
            0,
            states.findIndex((s) => s.remaining === 0),
          ),
        };
      } catch (error) {
        warn(error);
        return fallback.hit(buckets, now, requestId, gates);
      }
    },
    async refund(buckets, now, requestId) {
      if (!available()) return fallback.refund(buckets, now, requestId);
      try {
        await Promise.all(buckets.map((b) => client.zrem(keyPrefix + b.key, requestId)));
      } catch (error) {
        warn(error);
        await fallback.refund(buckets, now, requestId);
      }
    },
    async peek(bucket, now) {
      if (!available()) return fallback.peek(bucket, now);
      try {
        const { states } = await run([bucket], now.getTime(), '');
        return states[0] ?? fallback.peek(bucket, now);
      } catch (error) {
        warn(error);
        return fallback.peek(bucket, now);
      }
    },
    async close() {
      await fallback.close();
    },
  };
}
