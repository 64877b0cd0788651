import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/index.ts';
import { AppError, PROBLEM_CONTENT_TYPE, toProblem } from '../errors/index.ts';
import { newUuid } from '../ids.ts';
import { RESPONSE_HEADERS, STRICT_TRANSPORT_SECURITY } from './tls.ts';

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  request.problemCode = error.code;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(toProblem(error, request.id));
}

/** Framework errors we expect from bad requests, by Fastify code. */
function fromFrameworkError(error: FastifyError): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('input.unsupported_media_type', 'Send the body as Content-Type: application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('input.too_large', 'The request body is larger than this API accepts.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('input.malformed', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_BAD_URL':
      return new AppError('input.malformed', `The request could not be read: ${error.message}`);
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError('input.malformed', 'The body is not valid JSON.');
  }
  if (error.statusCode === 413) return new AppError('input.too_large', 'The request is too large.');
  if (error.statusCode === 415) return new AppError('input.unsupported_media_type', error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('input.malformed', error.message);
  }
  return null;
}

/**
 * Errors Fastify raises before it has a route (a malformed percent-encoding in the path): without this they get
 * Fastify's own JSON body, no problem details and no request id. No route means no guard, so these are answered
 * before the key is read (docs/spec-decisions.md, "Order of checks").
 */
export function onFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id).headers(RESPONSE_HEADERS);
  if (request.protocol === 'https') reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  sendProblem(
    request,
    reply,
    fromFrameworkError(error) ?? new AppError('input.malformed', 'The request could not be read.'),
  );
}

/** What Node's HTTP parser refused, as the problem to answer; null when the client is gone. */
export function parserProblem(error: Error & { code?: string }): AppError | null {
  switch (error.code) {
    case 'ECONNRESET':
      return null;
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('input.headers_too_large', 'The request headers are larger than this API accepts.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError(
        'input.too_large',
        'The chunk extensions of the body are larger than this API accepts.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('input.timeout', 'The request headers were not received in time.');
  }
  // llhttp's messages ("Parse Error: Invalid header value char") name the fault and nothing of ours.
  const why = error.code?.startsWith('HPE_') ? `: ${error.message}` : '.';
  return new AppError('input.malformed', `The request could not be read as HTTP/1.1${why}`);
}

type ClientSocket = Duplex & {
  /** Node's in-flight response on this connection (what its own clientError default checks). */
  _httpMessage?: ServerResponse | null;
};

/**
 * Answers a problem straight on the connection, for what never becomes a Fastify request (no route, no hook,
 * and no client address behind a proxy, so no rate headers), then closes it.
 */
function writeProblem(
  socket: Duplex,
  problem: AppError,
  requestId: string,
  extraHeaders: Record<string, string> = {},
): void {
  const body = JSON.stringify(toProblem(problem, requestId));
  const headers: Record<string, string> = {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    ...RESPONSE_HEADERS,
    ...(socket instanceof TLSSocket ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
    ...extraHeaders,
    connection: 'close',
  };
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * Answers what Node's HTTP parser refuses before a request exists (oversized or malformed headers, a broken
 * request line, conflicting framing, a timeout) with a problem and a request id, logged, instead of Fastify's
 * own JSON. Like Node, it writes nothing into a response already under way, and closes the connection.
 */
export function clientErrorHandler(
  logger: FastifyBaseLogger,
): (error: Error & { code?: string }, socket: ClientSocket) => void {
  return (error, socket) => {
    const problem = parserProblem(error);
    if (!problem || socket.destroyed) return;
    const requestId = newUuid();
    logger.info(
      { request_id: requestId, code: problem.code, parser_error: error.code, reason: error.message },
      'request refused by the HTTP parser',
    );
    if (!socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    writeProblem(socket, problem, requestId);
  };
}

/**
 * `CONNECT` (a proxy tunnel) never reaches Fastify: Node hands the connection to the server's 'connect'
 * listener, and without one closes it silently. We are no proxy: 405 with an empty `Allow` (its target is a
 * host, not a resource of ours, so no method is allowed on it), then close.
 */
export function connectHandler(
  logger: FastifyBaseLogger,
): (request: IncomingMessage, socket: Duplex) => void {
  return (request, socket) => {
    const requestId = newUuid();
    const problem = new AppError(
      'route.method_not_allowed',
      'CONNECT is not supported: this server is not a proxy.',
    );
    logger.info(
      { request_id: requestId, method: request.method, code: problem.code },
      'CONNECT request refused',
    );
    writeProblem(socket, problem, requestId, { allow: '' });
  };
}

export function registerErrorHandling(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = error instanceof AppError ? error : fromFrameworkError(error);
    if (known) return sendProblem(request, reply, known);
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendProblem(
        request,
        reply,
        new AppError(
          'service.unavailable',
          'The service is temporarily unavailable; retry the request shortly.',
        ),
      );
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(request, reply, new AppError('internal.error', 'An unexpected error occurred.'));
  });

  app.setNotFoundHandler(notFound(allowedMethods));
}

/**
 * Unmatched paths under /api/v1, as the router reads them (decoded), get a 404 handler of their own: the guard
 * treats them as API requests, so an unknown path needs a key first like a known one.
 */
export function registerApiNotFound(api: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  api.setNotFoundHandler(notFound(allowedMethods));
}

function notFound(allowedMethods: (url: string) => string[]) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?')[0] ?? '';
    const methods = allowedMethods(path);
    if (methods.length > 0) {
      const error = new AppError(
        'route.method_not_allowed',
        `${request.method} is not supported on ${path}.`,
        {
          headers: { allow: methods.join(', ') },
        },
      );
      return sendProblem(request, reply, error);
    }
    return sendProblem(
      request,
      reply,
      new AppError('route.not_found', `No route ${request.method} ${path}.`),
    );
  };
}

/** Remembers every route's pattern so an unknown method on a known path answers 405 with Allow. */
export function routeRegistry(app: FastifyInstance): (url: string) => string[] {
  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+').replace(/\/$/, '')}/?$`);
    for (const method of methods) routes.push({ method, pattern });
  });
  return (url) => [...new Set(routes.filter((r) => r.pattern.test(url)).map((r) => r.method))];
}
