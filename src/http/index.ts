// The request and route config fields this service adds to Fastify's types.
import './fastify-types.ts';

export { connectionDrain } from './drain.ts';
export {
  clientErrorHandler,
  connectHandler,
  onFrameworkError,
  registerApiNotFound,
  registerErrorHandling,
  routeRegistry,
} from './error-handler.ts';
export { API_PREFIX, DASHBOARD_PREFIX } from './prefixes.ts';
export { apiResponses, POST_CODES, problemSchema, sameShape, TRANSPORT_CODES } from './responses.ts';
export { storable, unstorable } from './text.ts';
export { loadTls, RESPONSE_HEADERS, STRICT_TRANSPORT_SECURITY } from './tls.ts';
export { zodIssues, zodValidatorCompiler } from './validation.ts';
