import { AsyncLocalStorage } from 'node:async_hooks';
import type twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';

export type TwilioSdk = twilio.Twilio;
type TwilioModule = typeof twilio;

export type ClientSettings = { accountSid: string; authToken: string; apiBaseUrl: string; timeoutMs: number };

/**
 * What one of our requests shares with the SDK's HTTP client under it, which the SDK's own API cannot carry: the
 * signal that ends it at our deadline, and the status and `Retry-After` of the answer (a RestException keeps
 * neither the headers nor, for an answer we cannot read, the status).
 */
export type RequestSlot = { signal: AbortSignal; status: number | null; retryAfter: string | null };

const slots = new AsyncLocalStorage<RequestSlot>();

/** Runs one SDK call with `slot` seen by every HTTP request it makes (a list makes one per page). */
export const inSlot = <T>(slot: RequestSlot, run: () => Promise<T>): Promise<T> => slots.run(slot, run);

let loading: Promise<TwilioModule> | null = null;
/**
 * The SDK, loaded by the first thing that needs it (a request, a callback): about 120 ms of modules that a process
 * on the simulator, or a CLI command that never talks to Twilio, does not pay for at start.
 */
export const loadTwilio = (): Promise<TwilioModule> => {
  loading ??= import('twilio').then((module) => module.default);
  return loading;
};

/** Twilio's hosts as the SDK names them: api.twilio.com, or api.sydney.au1.twilio.com with an edge and region. */
const TWILIO_HOST = /(^|\.)twilio\.com$/i;

/** The SDK's URL with Twilio's host replaced by `apiBaseUrl` (its own address, a proxy's or a test fake's). */
export function routed(uri: string, apiBaseUrl: string): string {
  const url = new URL(uri);
  if (!TWILIO_HOST.test(url.hostname)) return uri;
  return `${apiBaseUrl}${url.pathname}${url.search}`;
}

const headerOf = (headers: unknown, name: string): string | null => {
  const value =
    typeof headers === 'object' && headers !== null ? (headers as Record<string, unknown>)[name] : null;
  return typeof value === 'string' ? value : null;
};

/** The SDK's HTTP client, each request routed to `apiBaseUrl` and ended by its slot's signal. */
function routedRequestClient(sdk: TwilioModule, { apiBaseUrl, timeoutMs }: ClientSettings): RequestClient {
  class RoutedRequestClient extends sdk.RequestClient {
    constructor() {
      super({ timeout: timeoutMs, autoRetry: false });
      this.axios.interceptors.request.use((config) => {
        const slot = slots.getStore();
        if (slot) config.signal = slot.signal;
        return config;
      });
    }

    override async request<TData>(opts: RequestClient.RequestOptions<TData>) {
      const slot = slots.getStore();
      const response = await super.request({ ...opts, uri: routed(opts.uri, apiBaseUrl) });
      if (slot) {
        slot.status = response.statusCode;
        slot.retryAfter = headerOf(response.headers, 'retry-after');
      }
      return response;
    }
  }
  return new RoutedRequestClient();
}

/**
 * The process's one Twilio client, made on first use. Settings come from our config only: the SDK would otherwise
 * read its edge, region and log level from the environment. It never retries on its own (a retried send is a
 * second text).
 */
export function createTwilioClient(settings: ClientSettings): () => Promise<TwilioSdk> {
  let client: Promise<TwilioSdk> | null = null;
  return () => {
    client ??= loadTwilio().then((sdk) =>
      sdk(settings.accountSid, settings.authToken, {
        httpClient: routedRequestClient(sdk, settings),
        env: {},
        edge: '',
        region: '',
        logLevel: 'off',
        autoRetry: false,
        timeout: settings.timeoutMs,
      }),
    );
    return client;
  };
}
