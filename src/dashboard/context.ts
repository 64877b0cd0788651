import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AssistantsService } from '../assistants/index.ts';
import type { CallExport } from '../call-export/index.ts';
import type { CallsService } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { CustomersService } from '../customers/index.ts';
import { AppError } from '../errors/index.ts';
import type { KeysService } from '../keys/index.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import type { SmsService } from '../sms/index.ts';
import type { TranscriptsService } from '../transcripts/index.ts';
import type { SubscriptionsService, WebhookEventsService } from '../webhooks/index.ts';
import type { DashboardServices } from './dashboard.services.ts';
import type { SafeHtml } from './html.ts';
import type { Flash, Session, SessionSettings } from './sessions.service.ts';
import { DEFAULT_SESSION_SETTINGS } from './sessions.service.ts';
import type { AgentLinks } from './views/calls.view.ts';
import type { PageUser } from './views/layout.ts';
import './dashboard-types.ts';

export type DashboardSettings = {
  session: SessionSettings;
  /** Failed sign-ins per source address per minute before sign-in is refused for a while. */
  loginFailuresPerMinutePerIp: number;
  /** Failed sign-ins per email address per minute (whatever the source) before it is refused. */
  loginFailuresPerMinutePerEmail: number;
  /** TEST_MODE: the "Viewing test data" switch is shown and test keys can be made. */
  testMode: boolean;
};

export const DEFAULT_DASHBOARD_SETTINGS: DashboardSettings = {
  session: DEFAULT_SESSION_SETTINGS,
  loginFailuresPerMinutePerIp: 10,
  loginFailuresPerMinutePerEmail: 5,
  testMode: true,
};

/** The services the dashboard's pages call: the same domain layer as the API, named one by one. */
export type DashboardDomain = {
  assistants: AssistantsService;
  /** The agent each assistant is linked to upstream, shown on its row. */
  agentLinks: { agentLinks(assistantIds: string[]): Promise<AgentLinks> };
  calls: CallsService;
  callExport: CallExport;
  /** The account's call data settings (retention of calls, transcript redaction): the settings page. */
  customers: Pick<CustomersService, 'callDataSettings' | 'setCallRetention' | 'setTranscriptRedaction'>;
  keys: KeysService;
  /** Text messages, sent and received (the messages pages). */
  sms: SmsService;
  transcripts: TranscriptsService;
  subscriptions: SubscriptionsService;
  webhookEvents: WebhookEventsService;
  dashboard: DashboardServices;
};

export type DashboardContext = {
  services: DashboardDomain;
  limiter: RateLimiter;
  clock: Clock;
  settings: DashboardSettings;
};

export const SESSION_COOKIE = '__Host-vca_session';
export const LOGIN_COOKIE = '__Host-vca_login';

export function sessionOf(request: FastifyRequest): Session {
  const s = request.dashboardSession;
  if (!s) throw new AppError('internal.error', 'Dashboard page reached without a session.');
  return s;
}

export const userOf = (s: Session): PageUser => ({
  email: s.email,
  customerName: s.customerName,
  csrfToken: s.csrfToken,
  mode: s.mode,
  testMode: s.testModeOffered ?? false,
});

export function sendHtml(reply: FastifyReply, body: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.value);
}

/** Post/Redirect/Get: every successful form post answers 303 to a page. */
export const seeOther = (reply: FastifyReply, path: string): FastifyReply => reply.redirect(path, 303);

export async function flash(ctx: DashboardContext, request: FastifyRequest, f: Flash): Promise<void> {
  await ctx.services.dashboard.sessions.setFlash(sessionOf(request).id, f);
}
