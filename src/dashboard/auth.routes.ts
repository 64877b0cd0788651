import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../errors/index.ts';
import type { BucketState } from '../rate-limit/index.ts';
import {
  type DashboardContext,
  LOGIN_COOKIE,
  SESSION_COOKIE,
  seeOther,
  sendHtml,
  sessionOf,
} from './context.ts';
import { field, queryOf, readForm, sameToken } from './forms.ts';
import { normalizeEmail } from './users.service.ts';
import { loginPage } from './views/login.view.ts';

const COOKIE_BASE = { path: '/', secure: true, httpOnly: true, sameSite: 'strict' } as const;
const MAX_PASSWORD_INPUT = 1024;

/** Only a dashboard path may follow sign-in: never another site (`//evil`, `/\evil`). */
export function safeNext(next: string): string {
  return /^\/dashboard(\/[^\\\s]*)?(\?[^\\\s]*)?$/.test(next) && !next.startsWith('//')
    ? next
    : '/dashboard/';
}

function retryAfter(states: BucketState[]): string {
  return String(Math.max(1, ...states.map((s) => s.retryAfterSeconds)));
}

export function registerAuthRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { services, limiter, clock, settings } = ctx;
  // Fail closed: while Redis cannot answer, sign-in waits rather than let each instance grant its own guesses.
  const ipBucket = (ip: string) => ({
    key: `dashlogin:ip:${ip}`,
    limit: settings.loginFailuresPerMinutePerIp,
    failClosed: true,
  });
  // The email is hashed so the limiter's keys (possibly in Redis) hold no personal data.
  const emailBucket = (email: string) => ({
    key: `dashlogin:email:${createHash('sha256').update(email).digest('hex')}`,
    limit: settings.loginFailuresPerMinutePerEmail,
    failClosed: true,
  });

  /** The sign-in form carries a pre-session token, matched against a cookie (double submit). */
  function loginForm(
    reply: FastifyReply,
    existing: string | undefined,
    v: { email: string; next: string; error: string | null },
    status = 200,
  ) {
    const csrf = existing && existing.length === 43 ? existing : randomBytes(32).toString('base64url');
    reply.setCookie(LOGIN_COOKIE, csrf, { ...COOKIE_BASE, maxAge: 3600 });
    return sendHtml(reply, loginPage({ csrf, ...v }), status);
  }

  app.get('/login', { config: { dashboardPublic: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const token = request.cookies[SESSION_COOKIE];
    if (token && (await services.dashboard.sessions.resolve(token, settings.session, false))) {
      return seeOther(reply, '/dashboard/');
    }
    const next = safeNext(queryOf(request.query).next ?? '/dashboard/');
    return loginForm(reply, request.cookies[LOGIN_COOKIE], { email: '', next, error: null });
  });

  app.post('/login', { config: { dashboardPublic: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { form, issues } = readForm(request.body);
    const cookieToken = request.cookies[LOGIN_COOKIE] ?? '';
    if (!sameToken(field(form, '_csrf'), cookieToken)) {
      throw new AppError('perm.denied', 'The sign-in form expired. Reload the page and sign in again.');
    }
    const email = normalizeEmail(field(form, 'email'));
    const password = field(form, 'password');
    const next = safeNext(field(form, 'next'));
    // No account can hold such text, so nothing is looked up or counted.
    const [unstorable] = issues;
    if (unstorable) return loginForm(reply, cookieToken, { email, next, error: unstorable.message }, 422);
    const now = clock.now();
    const buckets = [ipBucket(request.ip), emailBucket(email)];
    // Every attempt is counted before its password is checked, and a success is taken back afterwards:
    // counting only after the check would let parallel guesses all pass a window that has one slot left.
    const attempt = await limiter.hit(buckets, now, request.id);
    if (!attempt.allowed) {
      const detail = attempt.failedClosed
        ? 'Sign-in is unavailable for a few seconds. Try again shortly.'
        : 'Too many failed sign-in attempts. Wait a minute and try again.';
      throw new AppError('auth.throttled', detail, {
        headers: { 'retry-after': retryAfter(attempt.states.filter((s) => s.remaining === 0)) },
      });
    }
    const user =
      email && password && password.length <= MAX_PASSWORD_INPUT
        ? await services.dashboard.users.verifyCredentials(email, password)
        : null;
    if (!user) {
      request.log.warn({ event: 'dashboard_login_failed' }, 'dashboard sign-in failed');
      return loginForm(
        reply,
        cookieToken,
        { email, next, error: 'The email or password is incorrect.' },
        401,
      );
    }
    await limiter.refund(buckets, now, request.id);
    // A new random session on every sign-in: a token planted before sign-in is worthless (no fixation).
    const { token } = await services.dashboard.sessions.create(user, settings.session);
    reply.setCookie(SESSION_COOKIE, token, { ...COOKIE_BASE, maxAge: settings.session.absoluteSeconds });
    reply.clearCookie(LOGIN_COOKIE, COOKIE_BASE);
    request.log.info(
      { event: 'dashboard_login', user_id: user.id, customer_id: user.customer_id },
      'dashboard sign-in',
    );
    return seeOther(reply, next);
  });

  /** The "Viewing test data" switch: back to the section it was used in (a detail page is the other view's). */
  app.post('/view', async (request, reply) => {
    const s = sessionOf(request);
    const mode = field(readForm(request.body).form, 'mode') === 'test' ? 'test' : 'live';
    if (mode === 'test' && !s.testModeOffered) {
      throw new AppError('perm.denied', 'Test mode is off on this service.');
    }
    await services.dashboard.sessions.view(s, mode);
    return seeOther(reply, safeNext(field(readForm(request.body).form, 'back')));
  });

  app.post('/logout', async (request, reply) => {
    await services.dashboard.sessions.destroy(sessionOf(request).id);
    reply.clearCookie(SESSION_COOKIE, COOKIE_BASE);
    return seeOther(reply, '/dashboard/login');
  });
}
