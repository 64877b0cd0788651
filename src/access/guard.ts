import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ZodType } from 'zod';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors/index.ts';
import { API_PREFIX, DASHBOARD_PREFIX, RESPONSE_HEADERS, STRICT_TRANSPORT_SECURITY } from '../http/index.ts';
import { type Authenticator, failureError, isFailure, looksLikeKey, type Principal } from '../keys/index.ts';
import type { BucketState, RateLimiter } from '../rate-limit/index.ts';
import { createThrottledAddresses } from './throttled-addresses.ts';

/**
 * Whether the router sent the request under `prefix`: by the pattern of the route it matched, or for a path
 * it could not match, by the scope of the 404 handler it chose (the API and the dashboard register their own).
 * Never by the URL as sent: the router decodes the path, so `/%61pi/v1/calls` is matched to `/api/v1/calls`.
 */
function routedUnder(request: FastifyRequest, prefix: string): boolean {
  const pattern = (request.is404 ? request.server.prefix : request.routeOptions.url) ?? '';
  return pattern === prefix || pattern.startsWith(`${prefix}/`);
}

export type GuardDeps = {
  authenticator: Authenticator;
  limiter: RateLimiter;
  clock: Clock;
  authFailuresPerMinutePerIp: number;
  authFailuresPerMinutePerPrefix: number;
  probesPerMinutePerIp: number;
  /** Whether the server is stopping: a request arriving then is refused. */
  stopping: () => boolean;
};

function setRateHeaders(reply: FastifyReply, state: BucketState): void {
  reply.header('x-ratelimit-limit', String(state.limit));
  reply.header('x-ratelimit-remaining', String(state.remaining));
  reply.header('x-ratelimit-reset', state.resetAt.toISOString());
}

const tooMany = (
  code: 'rate.exceeded' | 'rate.exceeded_key' | 'rate.exceeded_ip' | 'auth.throttled',
  detail: string,
  s: BucketState,
) => new AppError(code, detail, { headers: { 'retry-after': String(s.retryAfterSeconds) } });

/** Whether the query (or fragment: the router reads `#` as the start of the query too) holds a key. */
function keyInQuery(url: string): boolean {
  const q = url.search(/[?#]/);
  if (q < 0) return false;
  const query = url.slice(q + 1);
  try {
    return looksLikeKey(decodeURIComponent(query.replace(/\+/g, ' ')));
  } catch {
    return looksLikeKey(query);
  }
}

const isJson = (contentType: string | undefined): boolean =>
  /^application\/json\s*(;|$)/i.test(contentType?.trim() ?? '');

/** No body follows the headers: no length, or a zero one, and not chunked. */
const withoutBody = (request: FastifyRequest): boolean =>
  request.headers['transfer-encoding'] === undefined &&
  (request.headers['content-length'] === undefined || request.headers['content-length'] === '0');

/** A POST whose body schema accepts `{}` (or that has none) can be sent without a body: `curl -X POST`. */
function markOptionalBody(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.includes('POST')) return;
  const body = route.schema?.body;
  const bodyOptional = body === undefined || (body instanceof ZodType && body.safeParse({}).success);
  route.config = { ...route.config, bodyOptional };
}

/** Every `Authorization` line as received: Node's parsed headers keep only the first of several. */
function authorizationHeaders(request: FastifyRequest): string[] {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'authorization') values.push(raw[i + 1] ?? '');
  }
  return values;
}

/**
 * The one gate in front of every request: HTTPS, then for API routes the key, the two rate-limit
 * windows, the route's scope and the POST content type, in that order. Requests without a valid
 * key are counted in per-IP (and per-key-prefix) failure windows, which also fill their rate headers.
 */
export function registerGuard(app: FastifyInstance, deps: GuardDeps): void {
  const { authenticator, limiter, clock } = deps;
  const ipBucket = (ip: string) => ({ key: `authfail:ip:${ip}`, limit: deps.authFailuresPerMinutePerIp });
  const prefixBucket = (prefix: string) => ({
    key: `authfail:prefix:${prefix}`,
    limit: deps.authFailuresPerMinutePerPrefix,
  });

  const throttled = createThrottledAddresses();
  const addressThrottled = (s: BucketState) =>
    tooMany('auth.throttled', 'Too many failed authentication attempts from this address.', s);

  // The key is looked up first and the address's failure window checked in the same limiter call that
  // counts the request (one round trip to Redis, not two); a flood from a throttled address is refused
  // locally before any lookup (`throttled`).
  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
    const now = clock.now();
    const held = throttled.check(request.ip, now);
    if (held) {
      setRateHeaders(reply, held);
      throw addressThrottled(held);
    }
    const result = keyInQuery(request.url)
      ? ({
          code: 'auth.invalid',
          detail: 'API keys must not be sent in the URL; use the Authorization header (and rotate this key).',
          prefix: null,
        } as const)
      : await authenticator.authenticate(authorizationHeaders(request));
    if (!isFailure(result)) return result;

    const buckets = [ipBucket(request.ip), ...(result.prefix ? [prefixBucket(result.prefix)] : [])];
    const hit = await limiter.hit(buckets, now, request.id);
    const [ipNow] = hit.states as [BucketState];
    throttled.note(request.ip, ipNow, now);
    setRateHeaders(reply, ipNow);
    if (!hit.allowed && hit.blockedIndex === 0) throw addressThrottled(ipNow);
    // Failures refused by the address window are not recorded: a flood must not become a flood of writes.
    await authenticator.recordFailure(result, request.ip);
    if (!hit.allowed) {
      const blocked = hit.states[hit.blockedIndex] ?? ipNow;
      throw tooMany(
        'auth.throttled',
        'Too many failed authentication attempts for this key prefix.',
        blocked,
      );
    }
    throw failureError(result);
  }

  async function admit(request: FastifyRequest, reply: FastifyReply, p: Principal): Promise<void> {
    const now = clock.now();
    const hit = await limiter.hit(
      [
        { key: `customer:${p.customerId}`, limit: p.rateLimitPerMinute },
        { key: `key:${p.keyId}`, limit: p.keyRateLimitPerMinute },
      ],
      now,
      request.id,
      [ipBucket(request.ip)],
    );
    const [address, customer, key] = hit.states as [BucketState, BucketState, BucketState];
    if (!hit.allowed && hit.blockedIndex === 0) {
      throttled.note(request.ip, address, now);
      setRateHeaders(reply, address);
      throw addressThrottled(address);
    }
    setRateHeaders(reply, key.remaining < customer.remaining ? key : customer);
    if (hit.allowed) return;
    if (hit.blockedIndex === 1)
      throw tooMany('rate.exceeded', 'Rate limit exceeded for this customer.', customer);
    throw tooMany('rate.exceeded_key', 'Rate limit exceeded for this API key.', key);
  }

  // Verification probes need no key, so they are limited per source address instead.
  async function admitProbe(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const hit = await limiter.hit(
      [{ key: `probe:ip:${request.ip}`, limit: deps.probesPerMinutePerIp }],
      clock.now(),
      request.id,
    );
    const [state] = hit.states as [BucketState];
    setRateHeaders(reply, state);
    if (!hit.allowed)
      throw tooMany('rate.exceeded_ip', 'Too many verification probes from this address.', state);
  }

  app.addHook('onRoute', markOptionalBody);
  app.addHook('onClose', () => authenticator.close());
  app.decorateRequest('principal', null);
  app.decorateRequest('problemCode', null);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id).headers(RESPONSE_HEADERS);
    if (request.protocol !== 'https') {
      throw new AppError(
        'transport.insecure',
        'This API is served over HTTPS only. Send the request to https://.',
      );
    }
    reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
    if (deps.stopping())
      throw new AppError('service.unavailable', 'The server is stopping; retry the request.');
    // HTTP/1.1 requires it (RFC 9112 3.2); Node's own check would answer a bare 400 (app.ts turns it off).
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      throw new AppError('input.malformed', 'An HTTP/1.1 request must carry a Host header.');
    }
    if (!routedUnder(request, API_PREFIX)) return;
    const config = request.routeOptions.config;
    if (config.publicDocs) return;
    if (config.challengeProbe && (request.query as Record<string, unknown>).challenge !== undefined) {
      await admitProbe(request, reply);
      return;
    }

    const principal = await authenticate(request, reply);
    request.principal = principal;
    await admit(request, reply, principal);
    if (config.scope && !principal.scopes.includes(config.scope)) {
      throw new AppError('perm.denied', `This API key lacks the "${config.scope}" scope.`);
    }
    if (request.method !== 'POST') return;
    if (config.bodyOptional && withoutBody(request)) {
      // Nothing to read, so nothing to type: Fastify would run the named type's parser over zero bytes (JSON:
      // "the body is empty"; a form type, as `curl -d ''` sends: 415). Validation then reads it as `{}`.
      delete request.headers['content-type'];
    } else if (!isJson(request.headers['content-type'])) {
      throw new AppError(
        'input.unsupported_media_type',
        'POST requests must send Content-Type: application/json.',
      );
    }
  });

  // Every response carries rate headers; a request that never reached a window reports its IP's failure window.
  // Dashboard pages and assets are not the API: they skip the lookup (a Redis round trip in Redis mode).
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('x-ratelimit-limit') && !routedUnder(request, DASHBOARD_PREFIX)) {
      setRateHeaders(reply, await limiter.peek(ipBucket(request.ip), clock.now()));
    }
    return payload;
  });
}
