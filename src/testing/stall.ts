import type { RateLimiter } from '../rate-limit/interface.ts';

/** Holds this thread, as a burst of TLS handshakes or other long synchronous work holds the event loop. */
export function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

export type StallingLimiter = RateLimiter & {
  /**
   * Holds the thread for `ms` once, at the next `hit`: `sent`, right after its command has gone out (the answer
   * arrives while we are busy); `queued`, before it goes out (auto-pipelining writes it on `setImmediate`).
   */
  stallAtNextHit(ms: number, when: 'sent' | 'queued'): void;
};

/** The limiter with a stall of our own event loop placed while one of its requests is in flight. */
export function stallingLimiter(limiter: RateLimiter): StallingLimiter {
  let next: { ms: number; when: 'sent' | 'queued' } | null = null;
  return {
    ...limiter,
    hit(buckets, now, requestId, gates) {
      const result = limiter.hit(buckets, now, requestId, gates);
      const planned = next;
      next = null;
      if (planned?.when === 'sent') setImmediate(() => stall(planned.ms));
      else if (planned) stall(planned.ms);
      return result;
    },
    stallAtNextHit(ms, when) {
      next = { ms, when };
    },
  };
}
