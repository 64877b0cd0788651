import { Redis } from 'ioredis';
import type { Ctx } from './context.ts';

/**
 * Redis windows outlive the service process, so a second bench run within a minute would start with
 * the bench keys' windows partly full. Deletes exactly the bench customers' and keys' windows
 * (`rl:customer:<id>`, `rl:key:<id>`, the service's key names), nothing else.
 */
export async function resetLimiterWindows(ctx: Ctx): Promise<void> {
  const url = ctx.backend.redisUrl;
  if (!url) return;
  const f = ctx.fixture;
  const keys = [...f.main, ...f.outbound, f.deep];
  const names = new Set<string>();
  for (const k of keys) {
    names.add(`rl:customer:${k.customerId}`);
    names.add(`rl:key:${k.keyId}`);
  }
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const all = [...names];
    for (let i = 0; i < all.length; i += 1000) await redis.del(...all.slice(i, i + 1000));
  } finally {
    redis.disconnect();
  }
}
