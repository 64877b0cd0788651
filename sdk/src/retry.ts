/** When and how long to wait before trying a request again. */
export type RetryOptions = {
  /** Retries after the first attempt (default 3). 0 turns retrying off. */
  maxRetries?: number;
  /** First backoff for 502/503/504 and network errors, doubled each time (default 500 ms). */
  baseDelayMs?: number;
  /** Longest backoff (default 8 s). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown (default 60 s). */
  maxRetryAfterSeconds?: number;
};

export const RETRY_DEFAULTS: Required<RetryOptions> = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterSeconds: 60,
};

/** Statuses that say "try again later": the request was not carried out, or may be safely repeated. */
export const TRANSIENT_STATUSES = new Set([502, 503, 504]);

/**
 * The wait before retry number `attempt` (1, 2, …), or null for no retry. 429 waits exactly what
 * `Retry-After` says; 502/503/504 and network errors back off exponentially with jitter (50–100 %), or
 * wait `Retry-After` when the server sent one.
 */
export function retryDelayMs(
  o: Required<RetryOptions>,
  attempt: number,
  outcome: { status: number | null; retryAfterSeconds: number | null },
  random: () => number,
): number | null {
  if (attempt > o.maxRetries) return null;
  const { status, retryAfterSeconds } = outcome;
  if (status !== null && status !== 429 && !TRANSIENT_STATUSES.has(status)) return null;
  if (retryAfterSeconds !== null) {
    return retryAfterSeconds <= o.maxRetryAfterSeconds ? retryAfterSeconds * 1000 : null;
  }
  if (status === 429) return o.baseDelayMs * 2 ** (attempt - 1);
  const backoff = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(backoff * (0.5 + random() / 2));
}
