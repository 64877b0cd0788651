import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Database } from '../db/index.ts';
import { answerWithin, heardFrom, REDIS_DEADLINE } from '../rate-limit/index.ts';

/**
 * A dependency `/readyz` checks; `check` throws when it is down. `warning` names a condition worth an operator's
 * look that does not make the instance unready (a growing outbox: taking the instance out helps nobody).
 */
export type ReadinessProbe = { name: string; check(): Promise<void>; warning?(): string | null };

export function databaseProbe(db: Database): ReadinessProbe {
  return { name: 'database', check: async () => void (await sql`select 1`.execute(db)) };
}

/** Redis is ready when it answers within the limiter's own deadline, the one a request waits for. */
export function redisProbe(redis: Redis): ReadinessProbe {
  return {
    name: 'redis',
    check: async () => void (await answerWithin(redis.ping(), REDIS_DEADLINE, heardFrom(redis))),
  };
}
