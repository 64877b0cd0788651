import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import { type GuardedConnectorOptions, guardedConnector } from './ssrf-guard.ts';

export type SendResult = {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  /** The first RESPONSE_EXCERPT_BYTES of the answer's body as UTF-8 (for the delivery log); null without an answer. */
  responseExcerpt?: string | null;
};

export type WebhookSender = {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
};

/** How deliveries reach receivers: extra CA, name resolution, test routing. Production sets none of it. */
export type SenderNetwork = Pick<GuardedConnectorOptions, 'ca' | 'lookup' | 'routeCheckedAddress'>;

/** Bytes of a receiver's answer we read before closing: enough for an error message, no more. */
const MAX_RESPONSE_BYTES = 4096;
/** Bytes of it kept for the delivery log. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** The kept bytes as text; a character cut at the end is dropped rather than shown as garbage. */
const excerptOf = (chunks: Buffer[]): string =>
  new TextDecoder('utf-8', { fatal: false }).decode(
    Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES),
    { stream: true },
  );

/**
 * POSTs one delivery. Failure is any non-2xx answer (redirects are not followed), a timeout, or a
 * connection/TLS error; each comes back as a value, never an exception.
 */
export function createWebhookSender(
  options: {
    timeoutMs: number;
    allowPrivateTargets: boolean;
    allowHttp: boolean;
    /** Where a refused target's address goes (the attempt's `error` does not name it). */
    logger?: Logger | undefined;
  } & SenderNetwork,
): WebhookSender {
  const { logger } = options;
  const agent = new Agent({
    connect: guardedConnector({
      allowPrivate: options.allowPrivateTargets,
      ca: options.ca,
      lookup: options.lookup,
      routeCheckedAddress: options.routeCheckedAddress,
      timeoutMs: options.timeoutMs,
      onRefused: (refused) =>
        logger?.warn(refused, 'webhook target refused: its host resolved to a private or reserved address'),
    }),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 10_000,
  });
  return {
    async send(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      if (!options.allowHttp && !url.startsWith('https://')) {
        return {
          ok: false,
          statusCode: null,
          error: 'plain http targets are not allowed',
          latencyMs: 0,
          responseExcerpt: null,
        };
      }
      try {
        const res = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: agent,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        let read = 0;
        const kept: Buffer[] = [];
        for await (const chunk of res.body) {
          if (read < RESPONSE_EXCERPT_BYTES) kept.push(chunk as Buffer);
          read += (chunk as Buffer).length;
          if (read >= MAX_RESPONSE_BYTES) break;
        }
        res.body.destroy();
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        return {
          ok,
          statusCode: res.statusCode,
          error: ok ? null : `HTTP ${res.statusCode}`,
          latencyMs: elapsed(),
          responseExcerpt: excerptOf(kept),
        };
      } catch (error) {
        return {
          ok: false,
          statusCode: null,
          error: describeSendError(error),
          latencyMs: elapsed(),
          responseExcerpt: null,
        };
      }
    },
    close: () => agent.close(),
  };
}

/** The `error` of an attempt that got no answer within the timeout. */
export const TIMEOUT_ERROR = 'timeout';

/**
 * The one deadline is set in four places (the connector's connect timeout, the agent's headers and body timeouts,
 * the request's signal), all to the same value: whichever fires first under load, the attempt timed out, and the
 * adaptive per-receiver share must see it as one (CI once saw the headers timer win).
 */
const UNDICI_TIMEOUTS = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The attempt's `error` for a send that threw. */
export function describeSendError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return TIMEOUT_ERROR;
  const code = (error as { code?: string }).code;
  if (code && UNDICI_TIMEOUTS.has(code)) return TIMEOUT_ERROR;
  return code ? `${code}: ${error.message}` : error.message;
}
