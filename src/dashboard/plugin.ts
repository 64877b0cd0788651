import { readFileSync } from 'node:fs';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors/index.ts';
import { DASHBOARD_PREFIX, STRICT_TRANSPORT_SECURITY } from '../http/index.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import { registerAuthRoutes } from './auth.routes.ts';
import { registerCallsRoutes } from './calls.routes.ts';
import { registerCallsExportRoute } from './calls-export.routes.ts';
import {
  type DashboardContext,
  type DashboardDomain,
  type DashboardSettings,
  DEFAULT_DASHBOARD_SETTINGS,
  SESSION_COOKIE,
  sendHtml,
  userOf,
} from './context.ts';
import { field, readForm, sameToken } from './forms.ts';
import { registerKeysRoutes } from './keys.routes.ts';
import { registerMessagesRoutes } from './messages.routes.ts';
import { registerSettingsRoutes } from './settings.routes.ts';
import { registerUsageRoutes } from './usage.routes.ts';
import { errorPage } from './views/layout.ts';
import { registerWebhooksRoutes } from './webhooks.routes.ts';

/** Self only, no inline script or style: the page can load nothing the app does not serve itself. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': STRICT_TRANSPORT_SECURITY,
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

const STATIC_FILES: Record<string, { type: string; body: Buffer }> = {
  'dashboard.css': {
    type: 'text/css; charset=utf-8',
    body: readFileSync(new URL('./static/dashboard.css', import.meta.url)),
  },
  'dashboard.js': {
    type: 'text/javascript; charset=utf-8',
    body: readFileSync(new URL('./static/dashboard.js', import.meta.url)),
  },
};

export type DashboardOptions = {
  services: DashboardDomain;
  limiter: RateLimiter;
  clock: Clock;
  settings?: Partial<DashboardSettings> | undefined;
};

/** Settings from the environment (config.ts), for `buildApp`'s `dashboard` option. */
export function dashboardSettingsFromConfig(config: Config): DashboardSettings {
  return {
    session: {
      idleSeconds: config.dashboardSessionIdleSeconds,
      absoluteSeconds: config.dashboardSessionAbsoluteSeconds,
    },
    loginFailuresPerMinutePerIp: config.dashboardLoginFailuresPerMinutePerIp,
    loginFailuresPerMinutePerEmail: config.dashboardLoginFailuresPerMinutePerEmail,
    testMode: config.testMode,
  };
}

const TITLES: Partial<Record<string, string>> = {
  'resource.not_found': 'Not found',
  'perm.denied': 'Not allowed',
  'auth.throttled': 'Too many attempts',
  'input.invalid': 'Please check your input',
  'resource.conflict': 'Not possible right now',
};

/**
 * Cross-site form posts are refused before the token is even compared (defence in depth with SameSite).
 * Browsers say where a request comes from in Sec-Fetch-Site; only where it is absent (older clients) is
 * Origin compared. With `Referrer-Policy: no-referrer` a browser sends `Origin: null` even for our own
 * forms, so Origin alone cannot be required.
 */
function checkSameOrigin(request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    if (site !== 'same-origin' && site !== 'none') throw csrfError();
    return;
  }
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    host = null;
  }
  if (host !== request.host) throw csrfError();
}

export const csrfError = () =>
  new AppError(
    'perm.denied',
    'This form could not be accepted: it expired or did not come from this dashboard. Go back, reload the page and try again.',
  );

/**
 * The customer dashboard: server-rendered pages under /dashboard over the same domain services as the API and
 * the CLI; redirects `/` here. The usage page reads the API's request counts (usage/), which count without it.
 */
export async function registerDashboard(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { services } = options;
  const settings: DashboardSettings = {
    ...DEFAULT_DASHBOARD_SETTINGS,
    ...options.settings,
    session: { ...DEFAULT_DASHBOARD_SETTINGS.session, ...options.settings?.session },
  };
  const ctx: DashboardContext = { services, limiter: options.limiter, clock: options.clock, settings };

  app.addHook('onClose', async () => {
    await services.dashboard.close();
  });
  app.get('/', (_request, reply) => reply.redirect(`${DASHBOARD_PREFIX}/`, 302));

  await app.register(
    async (dash) => {
      dash.decorateRequest('dashboardSession', null);
      await dash.register(fastifyCookie);
      await dash.register(fastifyFormbody);

      dash.addHook('onRequest', async (request, reply) => {
        reply.headers(SECURITY_HEADERS);
        if (request.routeOptions.config.dashboardPublic) return;
        reply.header('cache-control', 'no-store');
        const token = request.cookies[SESSION_COOKIE];
        const session = token
          ? await services.dashboard.sessions.resolve(token, settings.session, request.method === 'GET')
          : null;
        if (session) {
          session.testModeOffered = settings.testMode;
          request.dashboardSession = session;
          return;
        }
        if (token)
          reply.clearCookie(SESSION_COOKIE, { path: '/', secure: true, httpOnly: true, sameSite: 'strict' });
        const path = request.url.split('?')[0] ?? '';
        const next =
          request.method === 'GET' && path !== `${DASHBOARD_PREFIX}/`
            ? `?next=${encodeURIComponent(request.url)}`
            : '';
        return reply.redirect(`${DASHBOARD_PREFIX}/login${next}`, 303);
      });

      // Every change: same origin, and the session's synchronizer token (sign-in checks its own pre-session token).
      dash.addHook('preHandler', async (request) => {
        if (request.method !== 'POST') return;
        checkSameOrigin(request);
        const session = request.dashboardSession;
        if (request.routeOptions.config.dashboardPublic || !session) return;
        if (!sameToken(field(readForm(request.body).form, '_csrf'), session.csrfToken)) throw csrfError();
      });

      dash.setErrorHandler((error: FastifyError, request, reply) => renderError(error, request, reply));
      dash.setNotFoundHandler((request, reply) => {
        request.problemCode = 'route.not_found';
        const user = request.dashboardSession ? userOf(request.dashboardSession) : null;
        return sendHtml(
          reply,
          errorPage(404, 'Not found', 'There is no such page in the dashboard.', user),
          404,
        );
      });

      dash.get('/static/:file', { config: { dashboardPublic: true } }, async (request, reply) => {
        const file = STATIC_FILES[(request.params as { file: string }).file];
        if (!file) return reply.callNotFound();
        return reply.header('cache-control', 'public, max-age=3600').type(file.type).send(file.body);
      });
      dash.get('/', async (_request, reply) => reply.redirect(`${DASHBOARD_PREFIX}/keys`, 302));

      registerAuthRoutes(dash, ctx);
      registerKeysRoutes(dash, ctx);
      registerWebhooksRoutes(dash, ctx);
      registerCallsExportRoute(dash, ctx);
      registerCallsRoutes(dash, ctx);
      registerMessagesRoutes(dash, ctx);
      registerUsageRoutes(dash, ctx);
      registerSettingsRoutes(dash, ctx);
    },
    { prefix: DASHBOARD_PREFIX },
  );
}

/** Friendly HTML for every failure; the detail of an unexpected error is logged, never shown. */
function renderError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const user = request.dashboardSession ? userOf(request.dashboardSession) : null;
  if (error instanceof AppError) {
    request.problemCode = error.code;
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    const title = TITLES[error.code] ?? 'Something went wrong';
    const message = error.issues?.map((i) => i.message).join(' ') || error.message;
    return sendHtml(reply, errorPage(error.status, title, message, user), error.status);
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    request.problemCode = 'input.malformed';
    return sendHtml(
      reply,
      errorPage(
        error.statusCode,
        'The request could not be read',
        'Go back, reload the page and try again.',
        user,
      ),
      error.statusCode,
    );
  }
  request.log.error({ err: error }, 'dashboard error');
  request.problemCode = 'internal.error';
  return sendHtml(
    reply,
    errorPage(500, 'Something went wrong', 'An unexpected error occurred. Please try again.', user),
    500,
  );
}
