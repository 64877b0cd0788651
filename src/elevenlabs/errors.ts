import { ElevenLabsError, ElevenLabsTimeoutError } from '@elevenlabs/elevenlabs-js';
import type { ProviderError } from '../provider/index.ts';
import { providerNotFound, providerTimeout, providerUnavailable } from '../provider/index.ts';

/** ElevenLabs answers 429 with these `detail.status` values when a concurrency limit is reached. */
const BUSY_STATUSES = new Set(['too_many_concurrent_requests', 'system_busy']);
const DEFAULT_BUSY_RETRY_SECONDS = 5;

function detailStatus(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('detail' in body)) return null;
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail !== 'object' || detail === null || !('status' in detail)) return null;
  const status = (detail as { status: unknown }).status;
  return typeof status === 'string' ? status : null;
}

/**
 * SDK 2.73 on Node 24 reports its own request timeout not as ElevenLabsTimeoutError but as an ElevenLabsError with
 * no status whose cause is the abort reason, the string "timeout" (measured against a server that never answers).
 */
const timedOut = (error: unknown): boolean =>
  error instanceof ElevenLabsError && error.statusCode === undefined && error.cause === 'timeout';

function retryAfter(error: ElevenLabsError): number {
  const value = error.rawResponse?.headers.get('retry-after');
  const seconds = value && /^\d{1,6}$/.test(value) ? Number(value) : DEFAULT_BUSY_RETRY_SECONDS;
  return Math.max(1, seconds);
}

/**
 * What went wrong, as our provider error: a timeout (the request may have taken effect), a 404 (unknown), a 429
 * concurrency limit (busy: nothing happened, retry later), anything else (5xx, refused, unreachable: unavailable).
 */
export function providerErrorOf(error: unknown, what: string, timeoutMs: number): ProviderError {
  if (error instanceof ElevenLabsTimeoutError || timedOut(error)) return providerTimeout(timeoutMs);
  if (!(error instanceof ElevenLabsError)) return providerUnavailable();
  if (error.statusCode === 404) return providerNotFound(what);
  if (error.statusCode === 429) {
    const status = detailStatus(error.body);
    if (status === null || BUSY_STATUSES.has(status)) {
      return {
        code: 'busy',
        retryable: true,
        retryAfterSeconds: retryAfter(error),
        detail: `The voice provider is at its concurrency limit (${status ?? 'rate limited'}).`,
      };
    }
  }
  return providerUnavailable(`The voice provider answered ${error.statusCode ?? 'with an error'}.`);
}
