import { ElevenLabsError, ElevenLabsTimeoutError } from '@elevenlabs/elevenlabs-js';
import type { ProviderError, ProviderOutcome } from '../provider/index.ts';
import { providerNotFound, providerTimeout, providerUnavailable } from '../provider/index.ts';

/** ElevenLabs answers 429 with these `detail.status` values when a concurrency limit is reached. */
const BUSY_STATUSES = new Set(['too_many_concurrent_requests', 'system_busy']);
const DEFAULT_BUSY_RETRY_SECONDS = 5;
/** What of an error body a log line keeps. */
const LOGGED_BODY_CHARS = 500;

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
 * The system error code under a request that never got an answer (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`,
 * `CERT_HAS_EXPIRED`, …): the SDK wraps fetch's `TypeError: fetch failed`, which wraps undici's error, which may
 * wrap one error per address tried.
 */
export function networkCode(error: unknown): string | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
    queue.push((e as { cause?: unknown }).cause, ...((e as { errors?: unknown[] }).errors ?? []));
  }
  return null;
}

/** A failed request as its log line tells it: the HTTP status if any answered, else the network code, and the body. */
export type FailureFacts = { status: number | null; network_code: string | null; body: string | null };

/** The error body, cut to a log line's share, with our own key taken out should an answer ever echo it. */
function bodyOf(error: ElevenLabsError, apiKey: string): string | null {
  if (error.body === undefined || error.body === null) return null;
  const text = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
  return text.replaceAll(apiKey, '[ELEVENLABS_API_KEY]').slice(0, LOGGED_BODY_CHARS);
}

/**
 * What went wrong, as our provider error, its outcome (the metric's label) and the facts a log line needs: a timeout
 * (the request may have taken effect), a 404 (unknown), a 429 concurrency limit (busy: nothing happened, retry
 * later), no answer at all (unreachable: named by its network code, never as an answer), anything else (5xx, 401,
 * other 429: unavailable, with the status).
 */
export function failureOf(
  error: unknown,
  what: string,
  o: { timeoutMs: number; apiKey: string },
): { error: ProviderError; outcome: ProviderOutcome; facts: FailureFacts } {
  const none: FailureFacts = { status: null, network_code: null, body: null };
  if (error instanceof ElevenLabsTimeoutError || timedOut(error)) {
    return { error: providerTimeout(o.timeoutMs), outcome: 'timeout', facts: none };
  }
  if (!(error instanceof ElevenLabsError)) {
    const detail = `The voice provider's client failed before an answer: ${error instanceof Error ? error.message : String(error)}.`;
    return { error: providerUnavailable(detail), outcome: 'unavailable', facts: none };
  }
  if (error.statusCode === undefined) {
    const code = networkCode(error);
    const detail = `The voice provider could not be reached${code ? ` (${code})` : ''}.`;
    return {
      error: providerUnavailable(detail),
      outcome: 'unavailable',
      facts: { ...none, network_code: code },
    };
  }
  const facts = { status: error.statusCode, network_code: null, body: bodyOf(error, o.apiKey) };
  const httpStatus = error.statusCode;
  if (httpStatus === 404)
    return { error: { ...providerNotFound(what), httpStatus }, outcome: 'not_found', facts };
  if (error.statusCode === 429) {
    const status = detailStatus(error.body);
    if (status === null || BUSY_STATUSES.has(status)) {
      const busy: ProviderError = {
        code: 'busy',
        retryable: true,
        retryAfterSeconds: retryAfter(error),
        detail: `The voice provider is at its concurrency limit (${status ?? 'rate limited'}).`,
        httpStatus,
      };
      return { error: busy, outcome: 'busy', facts };
    }
  }
  const said = detailStatus(error.body);
  const detail = `The voice provider answered ${httpStatus}${said ? ` (${said})` : ''}.`;
  return { error: { ...providerUnavailable(detail), httpStatus }, outcome: 'unavailable', facts };
}
