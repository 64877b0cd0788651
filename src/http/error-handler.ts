import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { PROBLEM_CONTENT_TYPE, toProblem } from '../errors/problem.ts';

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
 * Errors Fastify raises before it has a route (a malformed percent-encoding, a path segment over the router's
 * length limit): without this they get Fastify's own JSON body, no problem details and no request id.
 */
export function onFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  const known =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('input.malformed', 'The request could not be read: a path segment is too long.')
      : (fromFrameworkError(error) ?? new AppError('input.malformed', 'The request could not be read.'));
  sendProblem(request, reply, known);
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

  app.setNotFoundHandler((request, reply) => {
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
  });
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
