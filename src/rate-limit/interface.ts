export const WINDOW_MS = 60_000;

export type Bucket = {
  key: string;
  limit: number;
  /**
   * When the shared windows (Redis) cannot answer, refuse rather than count on this instance alone: for
   * windows that guard guesses worth more than a moment's availability (dashboard passwords).
   */
  failClosed?: boolean;
};

export type BucketState = {
  limit: number;
  remaining: number;
  /** When the bucket is full again (the newest counted request leaves the window). */
  resetAt: Date;
  /** Seconds until one more request would be admitted; 0 when one would be now. */
  retryAfterSeconds: number;
};

export type HitResult = {
  allowed: boolean;
  states: BucketState[];
  /** Index of the first bucket that refused, or -1. */
  blockedIndex: number;
  /** Refused only because a `failClosed` bucket's shared window could not be read, not because it is full. */
  failedClosed?: boolean;
};

/** Sliding-window log limiter over several buckets at once: a request is counted in all or in none. */
export interface RateLimiter {
  /**
   * Counts the request in every bucket if all have room. `gates` must have room too but are only looked
   * at, not counted; their states come first in `states` (and `blockedIndex` counts them). One round trip.
   */
  hit(buckets: Bucket[], now: Date, requestId: string, gates?: Bucket[]): Promise<HitResult>;
  /**
   * Takes back a request that `hit` counted at `now` under `requestId`, as if it had never come: for
   * limits that count only failures but must count every attempt before its outcome is known.
   */
  refund(buckets: Bucket[], now: Date, requestId: string): Promise<void>;
  peek(bucket: Bucket, now: Date): Promise<BucketState>;
  close(): Promise<void>;
}
