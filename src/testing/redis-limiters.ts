import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '../logger.ts';
import { createRedisLimiter, REDIS_CLIENT_OPTIONS } from '../rate-limit/redis.ts';
import { type StallingLimiter, stallingLimiter } from './stall.ts';

/**
 * The service's Redis limiter for tests, each on its own connection with the service's client options, every
 * window under one prefix of this run's own; `close` deletes them and closes every connection.
 */
export function testRedisLimiters(tag: string) {
  const prefix = `test:${tag}:${randomBytes(4).toString('hex')}:`;
  const clients: Redis[] = [];
  return {
    prefix,
    /**
     * A limiter on a new connection to `url`, and the warnings it logs. `connects: false` for a server that
     * refuses connections; `readyCheck: false` for one that cannot answer ioredis' `INFO`.
     */
    async open(
      url: string,
      options = { connects: true, readyCheck: true },
    ): Promise<{ limiter: StallingLimiter; warnings: string[]; client: Redis }> {
      const client = new Redis(url, { ...REDIS_CLIENT_OPTIONS, enableReadyCheck: options.readyCheck });
      client.on('error', () => {});
      clients.push(client);
      if (options.connects) await new Promise((resolve) => client.once('ready', resolve));
      const warnings: string[] = [];
      const logger = createLogger('warn', { write: (line: string) => warnings.push(line) });
      return { limiter: stallingLimiter(createRedisLimiter(client, logger, prefix)), warnings, client };
    },
    /** Deletes this run's windows from the Redis at `redisUrl` (when there is one) and closes every connection. */
    async close(redisUrl: string | undefined): Promise<void> {
      for (const c of clients) c.disconnect();
      if (!redisUrl) return;
      const direct = new Redis(redisUrl);
      const keys = await direct.keys(`${prefix}*`);
      if (keys.length) await direct.del(...keys);
      direct.disconnect();
    },
  };
}
