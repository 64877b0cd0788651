import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { answerWithin, type Deadline, type Heard, NoAnswerError } from './answer-deadline.ts';
import { createBatches } from './batches.ts';
import type { Bucket, BucketState, HitResult, RateLimiter } from './interface.ts';
import { WINDOW_MS } from './interface.ts';
import { createLastSeen } from './last-seen.ts';
import { createMemoryLimiter } from './memory.ts';
import { bucketState } from './sliding-window.ts';

// One atomic script per batch: the checks of the requests that came while the previous batch was out, each
// judged in turn exactly as it would be alone (Redis runs a script without interleaving anything), so the windows
// stay exact across instances. A check prunes each of its buckets, admits only if all have room, then counts the
// request in all of them but the first `gates` (only looked at). Sorted sets keyed by time.
// KEYS: every check's buckets, in order. ARGV: window ms, then per check: now ms, member ('' = only look), gates,
// bucket count, one limit per bucket. Reply per check: allowed, then count, oldest (only when full, else '') and
// newest per bucket.
const SCRIPT = `
local window = tonumber(ARGV[1])
local out = {}
local counts = {}
local limits = {}
local k = 0
local a = 2
while a <= #ARGV do
  local now = tonumber(ARGV[a])
  local member = ARGV[a + 1]
  local gates = tonumber(ARGV[a + 2])
  local n = tonumber(ARGV[a + 3])
  local allowed = 1
  for i = 1, n do
    local key = KEYS[k + i]
    limits[i] = tonumber(ARGV[a + 3 + i])
    -- A gate that holds nothing (an address without failures: nearly all) costs one lookup.
    if i > gates or redis.call('EXISTS', key) == 1 then
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
      counts[i] = redis.call('ZCARD', key)
    else
      counts[i] = 0
    end
    if counts[i] >= limits[i] then allowed = 0 end
  end
  if allowed == 1 and member ~= '' then
    for i = gates + 1, n do
      counts[i] = counts[i] + redis.call('ZADD', KEYS[k + i], now, member)
      redis.call('PEXPIRE', KEYS[k + i], window)
    end
  end
  out[#out + 1] = allowed
  for i = 1, n do
    out[#out + 1] = counts[i]
    -- The oldest entry matters only to a full bucket (when a slot frees): read only then.
    if counts[i] >= limits[i] then
      out[#out + 1] = redis.call('ZRANGE', KEYS[k + i], 0, 0, 'WITHSCORES')[2] or ''
    else
      out[#out + 1] = ''
    end
    if counts[i] == 0 then
      out[#out + 1] = ''
    else
      out[#out + 1] = redis.call('ZRANGE', KEYS[k + i], -1, -1, 'WITHSCORES')[2]
    end
  end
  k = k + n
  a = a + 4 + n
end
return out
`;

/**
 * How the service talks to Redis: fail fast rather than queue. There is no `commandTimeout`: its timer fires
 * before the socket is read, so after a stall of our own event loop it gives up on answers already received.
 * The limiter's own deadline (`REDIS_DEADLINE`) counts only the time this process was free to read them.
 */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  // Scripts issued in the same event-loop turn (many requests under load) go out in one write.
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
};

/**
 * How long Redis may say nothing while a request waits, before the request is judged without it (see
 * `answerWithin`). A Redis that stops answering without closing the connection (a partition, a frozen server)
 * would otherwise hold every request that counts against a window, forever.
 */
export const REDIS_DEADLINE: Deadline = { ms: 500, stepMs: 100 };

const heardByClient = new WeakMap<Redis, Heard>();

/** The answers heard on one Redis connection, shared by every wait on it (see `answerWithin`). */
export function heardFrom(redis: Redis): Heard {
  let heard = heardByClient.get(redis);
  if (!heard) {
    heard = { answers: 0 };
    heardByClient.set(redis, heard);
  }
  return heard;
}

/** After Redis fails, requests go straight to the local judgement this long before Redis is tried again. */
export const REDIS_RETRY_AFTER_MS = 5_000;

/** Checks in one run of the script at most, so that other clients of the server never wait long behind a batch. */
const MAX_BATCH = 128;

/** A check that waited behind a batch which found Redis failing: judged without Redis, nothing more to log. */
class SkippedError extends Error {}

type SlidingRedis = Redis & {
  slidingWindow(keyCount: number, ...args: (string | number)[]): Promise<(number | string)[]>;
};

/**
 * The limiter shared by every instance through Redis. When Redis cannot answer, a request is judged by this
 * instance alone, counted on top of what Redis last said each bucket held (never from empty); a bucket marked
 * `failClosed` refuses instead. Logged, and Redis is tried again after `REDIS_RETRY_AFTER_MS`: an outage of the
 * cache must not take the API down with it, nor open the windows that guard passwords.
 */
export function createRedisLimiter(redis: Redis, logger: Logger, keyPrefix = 'rl:'): RateLimiter {
  redis.defineCommand('slidingWindow', { lua: SCRIPT });
  const client = redis as SlidingRedis;
  const heard = heardFrom(redis);
  const lastSeen = createLastSeen();
  const local = createMemoryLimiter(lastSeen.held);
  let lastWarning = 0;
  // While Redis is failing, each request would otherwise wait for its own deadline before being judged.
  let skipUntil = 0;
  const available = () => Date.now() >= skipUntil;

  function fellBack(error: unknown) {
    const now = Date.now();
    skipUntil = now + REDIS_RETRY_AFTER_MS;
    if (now - lastWarning <= 10_000) return;
    lastWarning = now;
    const after = "windows counted by this instance on top of Redis's last counts; fail-closed ones refuse";
    // A deadline passed on an open connection: Redis, or the way to it, is slow or frozen. Any other failure
    // (refused, closed, not writable) means it cannot be reached at all.
    if (error instanceof NoAnswerError && redis.status === 'ready') {
      logger.warn(
        { event: 'redis_slow', deadline_ms: REDIS_DEADLINE.ms },
        `Redis slow: nothing answered for ${REDIS_DEADLINE.ms} ms of this process's time; ${after}`,
      );
    } else {
      logger.warn({ err: error, event: 'redis_unreachable' }, `Redis unreachable: ${after}`);
    }
  }

  async function withoutRedis(
    buckets: Bucket[],
    now: Date,
    requestId: string,
    gates: Bucket[],
  ): Promise<HitResult> {
    const all = [...gates, ...buckets];
    const closed = all.findIndex((b) => b.failClosed);
    if (closed < 0) return local.hit(buckets, now, requestId, gates);
    // None of the windows can be read: each is reported full until Redis is tried again.
    const resetAt = new Date(now.getTime() + REDIS_RETRY_AFTER_MS);
    const retryAfterSeconds = Math.ceil(REDIS_RETRY_AFTER_MS / 1000);
    return {
      allowed: false,
      states: all.map((b) => ({ limit: b.limit, remaining: 0, resetAt, retryAfterSeconds })),
      blockedIndex: closed,
      failedClosed: true,
    };
  }

  type Check = { buckets: Bucket[]; nowMs: number; member: string; gates: number };
  const check = createBatches<Check, (number | string)[]>(async (checks) => {
    // Queued behind a batch that found Redis failing: judged without it, like every request until the retry.
    if (!available()) throw new SkippedError();
    const keys: string[] = [];
    const args: (string | number)[] = [WINDOW_MS];
    for (const c of checks) {
      for (const b of c.buckets) keys.push(keyPrefix + b.key);
      args.push(c.nowMs, c.member, c.gates, c.buckets.length);
      for (const b of c.buckets) args.push(b.limit);
    }
    const reply = await answerWithin(
      client.slidingWindow(keys.length, ...keys, ...args),
      REDIS_DEADLINE,
      heard,
    );
    let at = 0;
    return checks.map((c) => {
      const length = 1 + c.buckets.length * 3;
      at += length;
      return reply.slice(at - length, at);
    });
  }, MAX_BATCH);

  async function run(buckets: Bucket[], nowMs: number, member: string, gates = 0) {
    const reply = await check({ buckets, nowMs, member, gates });
    const states: BucketState[] = buckets.map((b, i) => {
      const count = Number(reply[1 + i * 3]);
      const oldestReply = reply[2 + i * 3];
      const newestReply = reply[3 + i * 3];
      const newest = newestReply === '' ? null : Number(newestReply);
      // Not read unless the bucket is full: taken as the newest, so that the last counts remembered for an outage
      // hold every slot until the newest leaves (longer than in Redis, never shorter).
      const oldest = oldestReply === '' ? newest : Number(oldestReply);
      lastSeen.remember(b.key, count, oldest, newest, nowMs);
      return bucketState(b.limit, count, oldest, newest, nowMs);
    });
    return { allowed: Number(reply[0]) === 1, states };
  }

  return {
    async hit(buckets, now, requestId, gates = []): Promise<HitResult> {
      if (!available()) return withoutRedis(buckets, now, requestId, gates);
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
        if (!(error instanceof SkippedError)) fellBack(error);
        return withoutRedis(buckets, now, requestId, gates);
      }
    },
    async refund(buckets, now, requestId) {
      if (!available()) return local.refund(buckets, now, requestId);
      try {
        await answerWithin(
          Promise.all(buckets.map((b) => client.zrem(keyPrefix + b.key, requestId))),
          REDIS_DEADLINE,
          heard,
        );
      } catch (error) {
        fellBack(error);
        await local.refund(buckets, now, requestId);
      }
    },
    async peek(bucket, now) {
      if (!available()) return local.peek(bucket, now);
      try {
        const { states } = await run([bucket], now.getTime(), '');
        return states[0] ?? local.peek(bucket, now);
      } catch (error) {
        if (!(error instanceof SkippedError)) fellBack(error);
        return local.peek(bucket, now);
      }
    },
    async close() {
      await local.close();
    },
  };
}
