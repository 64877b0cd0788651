export { answerWithin } from './answer-deadline.ts';
export type { BucketState, RateLimiter } from './interface.ts';
export { createMemoryLimiter } from './memory.ts';
export { createRedisLimiter, heardFrom, REDIS_CLIENT_OPTIONS, REDIS_DEADLINE } from './redis.ts';
