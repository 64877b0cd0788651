import { problemFrom, retryAfterSeconds } from './errors.ts';
import { RETRY_DEFAULTS, type RetryOptions, retryDelayMs } from './retry.ts';
import type {
  AssistantsPage,
  CallDetail,
  CallsPage,
  CreateOutboundCall,
  CreateTestInboundCall,
  CreateTestInboundSms,
  CreateWebhookSubscription,
  ExportCallsQuery,
  Identity,
  ListAssistantsQuery,
  ListCallsQuery,
  ListMessagesQuery,
  ListWebhookEventsQuery,
  ListWebhookSubscriptionsQuery,
  Message,
  MessageDetail,
  MessagesPage,
  OutboundCall,
  OutboundDryRun,
  RotatedWebhookSecret,
  SendSms,
  SmsDryRun,
  Transcript,
  TranscriptPending,
  WebhookEventsPage,
  WebhookSubscription,
  WebhookSubscriptionsPage,
} from './types.ts';

/** What the client needs of `fetch`: the global one, undici's, or a test double. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<{ status: number; headers: { get(name: string): string | null }; text(): Promise<string> }>;

export type ClientOptions = {
  /** `svc_live_…`, from the dashboard. Sent as `Authorization: Bearer`, never in a URL. */
  apiKey: string;
  /** The service, e.g. `https://api.example.com` (`/api/v1` is added unless present). */
  baseUrl: string;
  fetch?: FetchLike;
  retry?: RetryOptions;
  /** How to wait between attempts (tests pass one that moves a clock instead). */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source, 0 ≤ x < 1. */
  random?: () => number;
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
  /** Called before each retry: for logs and metrics. */
  onRetry?: (info: {
    method: string;
    path: string;
    attempt: number;
    delayMs: number;
    status: number | null;
  }) => void;
};

export type RequestOptions = {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as `Idempotency-Key` (POST /outbound-calls); makes a POST safe to retry. */
  idempotencyKey?: string;
  /** The operation is idempotent by definition (e.g. POST /webhook-subscriptions), so retries are safe. */
  idempotent?: boolean;
  signal?: AbortSignal;
  /** The answer is text, not JSON (GET /calls/export): `data` is the body as sent. */
  text?: boolean;
};

export type ApiResponse<T> = {
  status: number;
  data: T;
  requestId: string | null;
  headers: { get(name: string): string | null };
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Page<T> = { data: T[]; next_cursor: string | null };

/** Every item of a cursor-paginated list, fetching the next page only when the previous one is used up. */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/**
 * The Voice Assistant Calls API. Retries 429 after `Retry-After`, and 502/503/504 and network errors
 * with exponential backoff, but never a POST that is not idempotent: POST /outbound-calls is retried only
 * with an `idempotencyKey`. Errors are thrown as `ProblemError`.
 */
export class VoiceCallsClient {
  readonly #apiKey: string;
  readonly #base: string;
  readonly #fetch: FetchLike;
  readonly #retry: Required<RetryOptions>;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #timeoutMs: number;
  readonly #onRetry: ClientOptions['onRetry'];

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.#apiKey = options.apiKey;
    const base = options.baseUrl.replace(/\/+$/, '');
    this.#base = base.endsWith('/api/v1') ? base : `${base}/api/v1`;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#retry = { ...RETRY_DEFAULTS, ...options.retry };
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#onRetry = options.onRetry;
  }

  /** Any endpoint: `path` relative to /api/v1. Throws ProblemError for every non-2xx answer. */
  async request<T>(method: string, path: string, o: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = new URL(this.#base + path);
    for (const [name, value] of Object.entries(o.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...o.headers,
      authorization: `Bearer ${this.#apiKey}`,
    };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.idempotencyKey !== undefined) headers['idempotency-key'] = o.idempotencyKey;
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    const upper = method.toUpperCase();
    const retryable = SAFE_METHODS.has(upper) || o.idempotent === true || o.idempotencyKey !== undefined;

    for (let attempt = 1; ; attempt++) {
      const timeout = AbortSignal.timeout(this.#timeoutMs);
      const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
      let outcome: { status: number | null; retryAfterSeconds: number | null };
      let failure: unknown;
      try {
        const res = await this.#fetch(url.toString(), { method: upper, headers, body, signal });
        const text = await res.text();
        if (res.status < 400) {
          return {
            status: res.status,
            data: (o.text ? text : text ? JSON.parse(text) : null) as T,
            requestId: res.headers.get('x-request-id'),
            headers: res.headers,
          };
        }
        failure = problemFrom(res.status, res.headers, text);
        outcome = {
          status: res.status,
          retryAfterSeconds: retryAfterSeconds(res.headers.get('retry-after')),
        };
      } catch (error) {
        // The caller's own abort is final; a timeout or a dropped connection may be retried.
        if (o.signal?.aborted) throw error;
        failure = error;
        outcome = { status: null, retryAfterSeconds: null };
      }
      const delayMs = retryable ? retryDelayMs(this.#retry, attempt, outcome, this.#random) : null;
      if (delayMs === null) throw failure;
      this.#onRetry?.({ method: upper, path, attempt, delayMs, status: outcome.status });
      await this.#sleep(delayMs);
    }
  }

  async *#allSubscriptions(query: Omit<ListWebhookSubscriptionsQuery, 'page'>) {
    for (let page = 0; ; page++) {
      const res = await this.webhookSubscriptions.list({ ...query, page });
      yield* res.data;
      if (!res.has_more) return;
    }
  }

  async #data<T>(method: string, path: string, o?: RequestOptions): Promise<T> {
    return (await this.request<T>(method, path, o)).data;
  }

  /** GET /auth/whoami: the key's customer and scopes (the connection test). */
  whoami(): Promise<Identity> {
    return this.#data('GET', '/auth/whoami');
  }

  readonly assistants = {
    list: (query: ListAssistantsQuery = {}): Promise<AssistantsPage> =>
      this.#data('GET', '/assistants', { query }),
    /** Every assistant, page after page (keyset cursor). */
    iterate: (query: Omit<ListAssistantsQuery, 'cursor'> = {}) =>
      paginate((cursor) =>
        this.assistants.list(cursor ? { ...query, cursor, offset: undefined, page: undefined } : query),
      ),
  };

  readonly calls = {
    list: (query: ListCallsQuery = {}): Promise<CallsPage> => this.#data('GET', '/calls', { query }),
    /** Every call matching the filters, newest first, page after page (keyset cursor). */
    iterate: (query: Omit<ListCallsQuery, 'cursor' | 'page'> = {}) =>
      paginate((cursor) => this.calls.list({ ...query, cursor })),
    get: (id: string): Promise<CallDetail> => this.#data('GET', `/calls/${encodeURIComponent(id)}`),
    /**
     * Every call of the filters as CSV (`format: 'ndjson'`: one JSON object per line), as one string. For millions of
     * calls, stream `GET /calls/export` to a file instead (docs/call-data.md): this holds the whole export in memory.
     */
    export: (query: ExportCallsQuery = {}): Promise<string> =>
      this.#data('GET', '/calls/export', {
        query: query as RequestOptions['query'],
        headers: { accept: 'text/csv, application/x-ndjson' },
        text: true,
      }),
    /** The transcript (REST form), or `{ status: "pending" }` (202) while it settles: ask again later. */
    transcript: (id: string): Promise<Transcript | TranscriptPending> =>
      this.#data('GET', `/calls/${encodeURIComponent(id)}/transcript`),
    /**
     * Deletes the call and everything carrying its content (204). A call not yet finished throws ProblemError
     * `call.in_progress` (409); once deleted it is a 404. Retried on network errors like every DELETE: a retry
     * after a deletion that went through throws `resource.not_found`.
     */
    delete: async (id: string): Promise<void> => {
      await this.request('DELETE', `/calls/${encodeURIComponent(id)}`);
    },
  };

  /** Test mode (a `svc_test_` key): helpers that exist only there. */
  readonly testMode = {
    /** A simulated caller rings one of your assistants (`POST /test/inbound-calls`); the call, ringing. */
    inboundCall: (body: CreateTestInboundCall): Promise<CallDetail> =>
      this.#data('POST', '/test/inbound-calls', { body }),
    /** Someone texts one of your assistants' numbers (`POST /test/inbound-sms`); the message, received. */
    inboundSms: (body: CreateTestInboundSms): Promise<MessageDetail> =>
      this.#data('POST', '/test/inbound-sms', { body }),
  };

  /** Text messages (scope `send_sms`). */
  readonly sms = {
    /**
     * Sends a text message. Pass an `idempotencyKey` (e.g. your booking id) so a timeout or a 502 can be retried
     * (automatically) without ever sending it twice; without one it is never retried.
     */
    send: (body: SendSms, options: { idempotencyKey?: string } = {}): Promise<Message> =>
      this.#data('POST', '/sms/send', { body, ...options }),
    /** Every check a send makes, with the segments and estimate; nothing sent (`POST /sms/send/dry-run`). */
    dryRun: (body: SendSms): Promise<SmsDryRun> =>
      this.#data('POST', '/sms/send/dry-run', { body, idempotent: true }),
    list: (query: ListMessagesQuery = {}): Promise<MessagesPage> =>
      this.#data('GET', '/sms/messages', { query }),
    /** Every message matching the filters, newest first, page after page (keyset cursor). */
    iterate: (query: Omit<ListMessagesQuery, 'cursor'> = {}) =>
      paginate((cursor) => this.sms.list({ ...query, cursor })),
    /** The message and every status it reached. */
    get: (id: string): Promise<MessageDetail> => this.#data('GET', `/sms/messages/${encodeURIComponent(id)}`),
  };

  readonly outboundCalls = {
    /**
     * Places a call. Pass an `idempotencyKey` (e.g. your order id) so a timeout or a 502 can be retried
     * (automatically) without ever placing the call twice; without one the call is never retried.
     */
    create: (body: CreateOutboundCall, options: { idempotencyKey?: string } = {}): Promise<OutboundCall> =>
      this.#data('POST', '/outbound-calls', { body, ...options }),
    /** Every check a placement makes, with nothing placed or reserved (`POST /outbound-calls/dry-run`). */
    dryRun: (body: CreateOutboundCall): Promise<OutboundDryRun> =>
      this.#data('POST', '/outbound-calls/dry-run', { body, idempotent: true }),
    transcript: (id: string): Promise<Transcript | TranscriptPending> =>
      this.#data('GET', `/outbound-calls/${encodeURIComponent(id)}/transcript`),
  };

  readonly webhookSubscriptions = {
    /** Idempotent on (url, events): `created` is false, and there is no `secret`, when it already existed. */
    create: async (
      body: CreateWebhookSubscription,
    ): Promise<{ created: boolean; subscription: WebhookSubscription }> => {
      const res = await this.request<WebhookSubscription>('POST', '/webhook-subscriptions', {
        body,
        idempotent: true,
      });
      return { created: res.status === 201, subscription: res.data };
    },
    list: (query: ListWebhookSubscriptionsQuery = {}): Promise<WebhookSubscriptionsPage> =>
      this.#data('GET', '/webhook-subscriptions', { query }),
    /** Every live subscription, page after page (`page`/`has_more`). */
    iterate: (query: Omit<ListWebhookSubscriptionsQuery, 'page'> = {}) => this.#allSubscriptions(query),
    get: (id: string): Promise<WebhookSubscription> =>
      this.#data('GET', `/webhook-subscriptions/${encodeURIComponent(id)}`),
    delete: (id: string): Promise<{ id: string; deleted: true }> =>
      this.#data('DELETE', `/webhook-subscriptions/${encodeURIComponent(id)}`),
    /** A new secret, once; the old one keeps signing (second header) for 24 hours. Not retried. */
    rotateSecret: (id: string): Promise<RotatedWebhookSecret> =>
      this.#data('POST', `/webhook-subscriptions/${encodeURIComponent(id)}/rotate-secret`, { body: {} }),
  };

  readonly webhookEvents = {
    list: (query: ListWebhookEventsQuery = {}): Promise<WebhookEventsPage> =>
      this.#data('GET', '/webhook-events', { query }),
    iterate: (query: Omit<ListWebhookEventsQuery, 'cursor' | 'page'> = {}) =>
      paginate((cursor) => this.webhookEvents.list({ ...query, cursor })),
    redeliver: (eventId: string, subscriptionId?: string): Promise<{ scheduled: number }> =>
      this.#data('POST', `/webhook-events/${encodeURIComponent(eventId)}/redeliver`, {
        body: subscriptionId ? { subscription_id: subscriptionId } : {},
      }),
    redeliverSince: (subscriptionId: string, since: Date | string): Promise<{ scheduled: number }> =>
      this.#data('POST', `/webhook-subscriptions/${encodeURIComponent(subscriptionId)}/redeliver`, {
        body: { since: since instanceof Date ? since.toISOString() : since },
      }),
  };
}
