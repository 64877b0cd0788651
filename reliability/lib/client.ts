import { Agent, request } from 'undici';
import { loopbackConnector } from '../../src/testing/test-app.ts';

export type Answer = {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: unknown;
  ms: number;
};

/** status 0: no answer within the bound (or the connection failed); `error` says which. */
export type Outcome = Answer & { error: string | null };

export type Client = {
  send(
    method: string,
    path: string,
    options?: {
      key?: string;
      body?: unknown;
      headers?: Record<string, string>;
      localAddress?: string;
      /** Give up after this long; the outcome then has status 0 and error "no answer in N ms". */
      boundMs?: number;
    },
  ): Promise<Outcome>;
  close(): Promise<void>;
};

/** An HTTPS client for a service process: trusts the test certificate, can act as another loopback address. */
export function serviceClient(baseUrl: string, ca: string): Client {
  const agents = new Map<string, Agent>();
  const agentFor = (localAddress: string) => {
    let agent = agents.get(localAddress);
    if (!agent) {
      agent = new Agent({ connect: loopbackConnector(ca, localAddress), connections: 32 });
      agents.set(localAddress, agent);
    }
    return agent;
  };
  return {
    async send(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const bound = options.boundMs ?? 30_000;
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      try {
        const res = await request(baseUrl + path, {
          method: method as 'GET',
          headers,
          body,
          dispatcher: agentFor(options.localAddress ?? '127.0.0.1'),
          signal: AbortSignal.timeout(bound),
        });
        const text = await res.body.text();
        let parsed: unknown = null;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          parsed = null;
        }
        const flat = Object.fromEntries(
          Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
        );
        return { status: res.statusCode, headers: flat, text, body: parsed, ms: ms(), error: null };
      } catch (error) {
        const name = error instanceof Error ? error.name : '';
        const message =
          name === 'TimeoutError' || name === 'AbortError'
            ? `no answer in ${bound} ms`
            : error instanceof Error
              ? error.message
              : String(error);
        return { status: 0, headers: {}, text: '', body: null, ms: ms(), error: message };
      }
    },
    async close() {
      await Promise.all([...agents.values()].map((a) => a.close()));
    },
  };
}

/** Percentile of a list of numbers (nearest rank); 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every `everyMs` until it holds or `seconds` pass; returns whether it held. */
export async function until(condition: () => boolean | Promise<boolean>, seconds: number, everyMs = 50) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}
