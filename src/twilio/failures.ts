import type { SmsProviderError } from '../sms/index.ts';
import { errorSentence, REFUSALS, TOO_MANY_REQUESTS } from './error-codes.ts';

/** How one request to Twilio ended, as its log line names it. */
export type Outcome = 'ok' | 'refused' | 'busy' | 'not_found' | 'unavailable' | 'timeout' | 'unreadable';

/** What a failure's log line tells: the HTTP status and Twilio's code and message, or the network error. */
export type FailureFacts = {
  status: number | null;
  twilio_code: string | null;
  message: string | null;
  network_code: string | null;
};

export type Failure = { error: SmsProviderError; outcome: Outcome; facts: FailureFacts };

export type FailureContext = {
  /** The thing asked about, for a sentence: "message SM…". */
  what: string;
  /** A 404 means "no such thing" only when we asked for one thing (a fetch), not when we sent one. */
  notFoundMeansUnknown: boolean;
  timeoutMs: number;
  /** The status of the answer the SDK got, if one came (it throws for a 2xx body it cannot parse, too). */
  status: number | null;
  retryAfter: string | null;
  now: Date;
  authToken: string;
};

/** Axios's codes for a request that ended at a deadline: ours (the abort) or the SDK's own timeout. */
const TIMED_OUT = new Set(['ERR_CANCELED', 'ECONNABORTED', 'ETIMEDOUT']);

type SdkError = Error & { status?: unknown; code?: unknown; detail?: unknown; isAxiosError?: unknown };

/** Twilio's error code as a string of digits, whether the body gave a number or a string. */
export function codeOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return String(value);
  if (typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) && Number(value) > 0) return value.trim();
  return null;
}

/** Seconds to wait: `Retry-After` as seconds or an HTTP date, at least 1, else 1. */
export function retryAfterSeconds(value: string | null, now: Date): number {
  const text = value?.trim() ?? '';
  if (/^\d{1,6}$/.test(text)) return Math.max(1, Number(text));
  const at = Date.parse(text);
  return Number.isNaN(at) ? 1 : Math.max(1, Math.ceil((at - now.getTime()) / 1000));
}

const NO_FACTS: FailureFacts = { status: null, twilio_code: null, message: null, network_code: null };

export const timedOut = (timeoutMs: number): Failure => ({
  error: { code: 'timeout', retryable: true, detail: `Twilio did not answer within ${timeoutMs} ms.` },
  outcome: 'timeout',
  facts: NO_FACTS,
});

/**
 * A request that threw, as our error: no answer (a deadline: timeout; anything else: unavailable, by its network
 * code), or Twilio's error answer (RestException, or TwilioServiceException for an RFC 9457 body), by its code
 * first (a refusal, 20429) and then its HTTP status.
 */
export function failureOf(thrown: unknown, c: FailureContext): Failure {
  const e = (thrown instanceof Error ? thrown : new Error(String(thrown))) as SdkError;
  const redact = (text: string): string => text.replaceAll(c.authToken, '[TWILIO_AUTH_TOKEN]');
  if (e.isAxiosError === true) {
    const network = typeof e.code === 'string' ? e.code : null;
    if (network && TIMED_OUT.has(network)) return timedOut(c.timeoutMs);
    const detail = `Twilio could not be reached${network ? ` (${network})` : ''}.`;
    return {
      error: { code: 'unavailable', retryable: true, detail },
      outcome: 'unavailable',
      facts: { ...NO_FACTS, network_code: network, message: redact(e.message) },
    };
  }
  if (typeof e.status !== 'number') {
    // The SDK itself failed (a page it cannot split into records, a path parameter it refuses): no usable answer.
    const detail = `Twilio's client failed before an answer: ${redact(e.message)}.`;
    return {
      error: {
        code: 'unavailable',
        retryable: true,
        detail,
        ...(c.status === null ? {} : { httpStatus: c.status }),
      },
      outcome: 'unreadable',
      facts: { ...NO_FACTS, status: c.status, message: redact(e.message) },
    };
  }
  const httpStatus = e.status;
  const code = codeOf(e.code);
  const said = [e.detail, e.message].find((s): s is string => typeof s === 'string' && s.length > 0);
  const facts: FailureFacts = {
    ...NO_FACTS,
    status: httpStatus,
    twilio_code: code,
    message: said ? redact(said) : null,
  };
  const answered = `HTTP ${httpStatus}${code ? `, error ${code}` : ''}`;
  const refusal = code ? REFUSALS.get(code) : undefined;
  if (code && refusal) {
    const detail = `Twilio refused the message (error ${code}): ${errorSentence(code)}`;
    return {
      error: { code: 'refused', reason: refusal, retryable: false, providerCode: code, detail, httpStatus },
      outcome: 'refused',
      facts,
    };
  }
  if (httpStatus === 429 || code === TOO_MANY_REQUESTS) {
    const retryAfterSecs = retryAfterSeconds(c.retryAfter, c.now);
    return {
      error: {
        code: 'busy',
        retryable: true,
        retryAfterSeconds: retryAfterSecs,
        detail: `Twilio is limiting our requests (${answered}); retry in ${retryAfterSecs} s.`,
        httpStatus,
      },
      outcome: 'busy',
      facts,
    };
  }
  if (httpStatus === 404 && c.notFoundMeansUnknown) {
    return {
      error: { code: 'not_found', retryable: false, detail: `Twilio does not know ${c.what}.`, httpStatus },
      outcome: 'not_found',
      facts,
    };
  }
  const unavailable = (retryable: boolean, detail: string): Failure => ({
    error: { code: 'unavailable', retryable, detail, httpStatus },
    outcome: 'unavailable',
    facts,
  });
  if (httpStatus === 401 || httpStatus === 403) {
    return unavailable(true, `Twilio refuses the account SID and auth token (${answered}).`);
  }
  if (httpStatus >= 500) return unavailable(true, `Twilio failed (${answered}).`);
  // Any other refusal of the request itself (a body too long, a parameter it rejects) comes again on a retry.
  return unavailable(
    false,
    `Twilio refused the request for ${c.what} (${answered})${said ? `: ${redact(said)}` : ''}.`,
  );
}
