import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError, invalidInput, notFound } from '../errors/index.ts';
import { zodIssues } from '../http/index.ts';
import { isUuid } from '../ids.ts';
import { enumParam, intParam, MAX_CURSOR_LENGTH, tokenParam } from '../pagination/index.ts';
import type { SubscriptionView } from '../webhooks/index.ts';
import { type DashboardContext, flash, seeOther, sendHtml, sessionOf, userOf } from './context.ts';
import { type DeliveryLogQuery, LOG_PAGE_SIZE } from './dashboard.services.ts';
import { asForm, field, fields, queryOf, readForm, utcInput } from './forms.ts';
import { when } from './views/format.ts';
import { deliveryCharts } from './views/webhook-charts.view.ts';
import {
  attemptPage,
  deleteWebhookPage,
  type NewWebhookValues,
  newWebhookPage,
  webhookDetailPage,
  webhooksListPage,
} from './views/webhooks.view.ts';

const SUB_ID_RE = /^sub_[0-9a-f]{24}$/;
/** The delivery log's query: its filter, and the API's paging parameters with the API's own parsers. */
const deliveryLogQuery = z.object({
  outcome: enumParam(['failed']),
  limit: intParam(1, 100),
  cursor: tokenParam(MAX_CURSOR_LENGTH),
  page: intParam(0, 1_000_000),
});

export function registerWebhooksRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { services, clock } = ctx;

  async function ownSub(customerId: string, params: unknown): Promise<SubscriptionView> {
    const id = (params as { id: string }).id;
    if (!SUB_ID_RE.test(id)) throw notFound('Webhook subscription');
    return services.subscriptions.get(customerId, id);
  }
  const detail = (id: string) => `/dashboard/webhooks/${id}`;

  app.get('/webhooks', async (request, reply) => {
    const s = sessionOf(request);
    const subs = await services.subscriptions.listForCustomer(s.customerId);
    return sendHtml(reply, webhooksListPage({ user: userOf(s), flash: s.flash, subs }));
  });

  app.get('/webhooks/new', async (request, reply) => {
    const s = sessionOf(request);
    const values: NewWebhookValues = { url: '', events: ['call.completed'], description: '' };
    return sendHtml(reply, newWebhookPage({ user: userOf(s), values, issues: [] }));
  });

  app.post('/webhooks', async (request, reply) => {
    const s = sessionOf(request);
    const { form, issues: unstorable } = readForm(request.body);
    const values = {
      url: field(form, 'url').trim(),
      events: fields(form, 'events'),
      description: field(form, 'description'),
    };
    if (unstorable.length > 0) {
      const issues = unstorable.map((i) => (i.field in values ? i : { message: i.message }));
      return sendHtml(reply, newWebhookPage({ user: userOf(s), values, issues }), 422);
    }
    try {
      const { created, subscription } = await services.subscriptions.subscribe(s.customerId, values);
      await flash(
        ctx,
        request,
        created && subscription.secret
          ? {
              kind: 'notice',
              message: 'Endpoint added.',
              secret: {
                label: 'Signing secret',
                value: subscription.secret,
                note: 'Verify X-Svc-Signature-256 with it.',
              },
            }
          : {
              kind: 'notice',
              message: 'This endpoint already exists with these events; its secret is unchanged.',
            },
      );
      return seeOther(reply, detail(subscription.id));
    } catch (error) {
      if (
        !(error instanceof AppError) ||
        (error.code !== 'input.invalid' && error.code !== 'resource.conflict')
      )
        throw error;
      const issues = (error.issues ?? [{ path: [], message: error.message }]).map((i) => {
        const f = i.path.filter((p) => p !== 'body')[0];
        return f === 'url' || f === 'events' ? { field: f, message: i.message } : { message: i.message };
      });
      return sendHtml(reply, newWebhookPage({ user: userOf(s), values, issues }), error.status);
    }
  });

  app.get('/webhooks/:id', async (request, reply) => {
    const s = sessionOf(request);
    const sub = await ownSub(s.customerId, request.params);
    const parsed = deliveryLogQuery.safeParse(queryOf(request.query));
    if (!parsed.success)
      throw invalidInput(
        zodIssues(parsed.error, 'query').map((i) => ({ ...i, message: `${i.path[1]}: ${i.message}` })),
      );
    const q = parsed.data;
    const paging: DeliveryLogQuery = {
      failedOnly: q.outcome === 'failed',
      limit: q.limit ?? LOG_PAGE_SIZE,
      cursor: q.cursor,
      page: q.page ?? 0,
    };
    const [log, stats] = await Promise.all([
      services.dashboard.deliveryLog(s.customerId, sub.id, paging),
      services.dashboard.deliveryCharts(s.customerId, sub.id),
    ]);
    const nowLocal = new Date(clock.now().getTime() - 3_600_000).toISOString().slice(0, 16);
    return sendHtml(
      reply,
      webhookDetailPage({
        user: userOf(s),
        flash: s.flash,
        sub,
        log,
        paging,
        charts: deliveryCharts(stats),
        nowLocal,
      }),
    );
  });

  app.get('/webhooks/:id/attempts/:attemptId', async (request, reply) => {
    const s = sessionOf(request);
    const sub = await ownSub(s.customerId, request.params);
    const attemptId = (request.params as { attemptId: string }).attemptId;
    if (!/^\d{1,15}$/.test(attemptId)) throw notFound('Delivery attempt');
    const attempt = await services.dashboard.deliveryAttempt(s.customerId, sub.id, Number(attemptId));
    if (!attempt) throw notFound('Delivery attempt');
    return sendHtml(reply, attemptPage({ user: userOf(s), sub, attempt }));
  });

  for (const [action, active] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(`/webhooks/:id/${action}`, async (request, reply) => {
      const s = sessionOf(request);
      const sub = await ownSub(s.customerId, request.params);
      await services.subscriptions.setActive(s.customerId, sub.id, active);
      request.log.info(
        { event: `dashboard_webhook_${action}`, subscription_id: sub.id },
        `webhook ${action}d`,
      );
      await flash(ctx, request, {
        kind: 'notice',
        message: active
          ? 'Endpoint re-enabled: the failure count starts again and pending deliveries go out now.'
          : 'Endpoint disabled: no new events are queued for it.',
      });
      return seeOther(reply, detail(sub.id));
    });
  }

  app.post('/webhooks/:id/test', async (request, reply) => {
    const s = sessionOf(request);
    const sub = await ownSub(s.customerId, request.params);
    const r = await services.dashboard.sendTestEvent(s.customerId, sub.id);
    await flash(
      ctx,
      request,
      r.ok
        ? {
            kind: 'notice',
            message: `Test ${r.event} event delivered: HTTP ${r.statusCode} in ${r.latencyMs} ms.`,
          }
        : {
            kind: 'error',
            message: `Test ${r.event} event failed: ${r.error ?? 'no answer'} (after ${r.latencyMs} ms).`,
          },
    );
    return seeOther(reply, detail(sub.id));
  });

  app.post('/webhooks/:id/rotate-secret', async (request, reply) => {
    const s = sessionOf(request);
    const sub = await ownSub(s.customerId, request.params);
    const r = await services.subscriptions.rotateSecret(s.customerId, sub.id);
    request.log.info(
      { event: 'dashboard_webhook_secret_rotated', subscription_id: sub.id },
      'webhook secret rotated',
    );
    await flash(ctx, request, {
      kind: 'notice',
      message: 'Signing secret rotated.',
      secret: {
        label: 'New signing secret',
        value: r.secret,
        note: `Until ${when(r.previous_secret_expires_at)} deliveries also carry X-Svc-Signature-256-Previous, signed with the old secret.`,
      },
    });
    return seeOther(reply, detail(sub.id));
  });

  app.post('/webhooks/:id/redeliver', async (request, reply) => {
    const s = sessionOf(request);
    const sub = await ownSub(s.customerId, request.params);
    const form = asForm(request.body);
    const eventId = field(form, 'event_id');
    if (eventId) {
      if (!isUuid(eventId)) throw notFound('Event');
      const r = await services.webhookEvents.redeliverEvent(s.customerId, eventId.toLowerCase(), sub.id);
      await flash(ctx, request, {
        kind: 'notice',
        message: `Event scheduled for redelivery (${r.scheduled}).`,
      });
      return seeOther(reply, detail(sub.id));
    }
    const since = new Date(utcInput(field(form, 'since')));
    if (Number.isNaN(since.getTime())) {
      await flash(ctx, request, { kind: 'error', message: 'Give a date and time to redeliver from.' });
      return seeOther(reply, detail(sub.id));
    }
    const r = await services.webhookEvents.redeliverSince(s.customerId, sub.id, since);
    await flash(ctx, request, {
      kind: 'notice',
      message: `${r.scheduled} event${r.scheduled === 1 ? '' : 's'} since ${when(since)} scheduled for redelivery.`,
    });
    return seeOther(reply, detail(sub.id));
  });

  app.get('/webhooks/:id/delete', async (request, reply) => {
    const s = sessionOf(request);
    const sub = await ownSub(s.customerId, request.params);
    return sendHtml(reply, deleteWebhookPage({ user: userOf(s), sub }));
  });

  app.post('/webhooks/:id/delete', async (request, reply) => {
    const s = sessionOf(request);
    const sub = await ownSub(s.customerId, request.params);
    await services.subscriptions.unsubscribe(s.customerId, sub.id);
    request.log.info({ event: 'dashboard_webhook_deleted', subscription_id: sub.id }, 'webhook deleted');
    await flash(ctx, request, { kind: 'notice', message: `Endpoint ${sub.url} deleted.` });
    return seeOther(reply, '/dashboard/webhooks');
  });
}
