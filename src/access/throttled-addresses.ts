import type { BucketState } from '../rate-limit/index.ts';

/**
 * Addresses this instance has seen with a full failure window, kept until the Retry-After it gave them has
 * passed, so that a brute-force flood is refused without a key lookup or a limiter call. Exact for the
 * window itself: a full sliding log only drains with time, and refused requests are never counted in it.
 */
export function createThrottledAddresses() {
  const held = new Map<string, { state: BucketState; untilMs: number }>();

  function sweep(nowMs: number) {
    for (const [ip, h] of held) if (h.untilMs <= nowMs) held.delete(ip);
  }

  return {
    /** Notes the address's failure window as just read; only a full one is kept. */
    note(ip: string, state: BucketState, now: Date): void {
      if (state.remaining > 0 || state.retryAfterSeconds === 0) return;
      const nowMs = now.getTime();
      // Entries live at most a window's length, so sweeping on insert keeps the map to the live floods.
      sweep(nowMs);
      held.set(ip, { state, untilMs: nowMs + state.retryAfterSeconds * 1000 });
    },
    /** The window's state when the address is still held, with its Retry-After counted down; else null. */
    check(ip: string, now: Date): BucketState | null {
      const h = held.get(ip);
      if (!h) return null;
      const left = h.untilMs - now.getTime();
      if (left <= 0) {
        held.delete(ip);
        return null;
      }
      return { ...h.state, retryAfterSeconds: Math.ceil(left / 1000) };
    },
  };
}
