import type { Clock } from '../clock.ts';
import type { Database, EventType } from '../db/index.ts';
import { AppError, notFound } from '../errors/index.ts';
import type { Instant } from '../pagination/index.ts';
import { createCursorCodec, instantFromMicros } from '../pagination/index.ts';
import type { Signer } from '../signer.ts';
import { envelopeOf } from './envelope.ts';
import { findLive } from './subscriptions.repository.ts';
import * as repo from './webhook-events.repository.ts';

/** Redelivery of "everything since T" is bounded per request; asking again continues past what is pending. */
export const MAX_REDELIVERY = 10_000;

/**
 * How far back "everything since T" reaches: a week of downtime, well past the 2.5 days a delivery is
 * retried. Older gaps are for the list endpoints (calls, webhook events), not a bulk re-send.
 */
export const REDELIVERY_WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;

export type EventQuery = {
  type?: EventType;
  call_id?: string;
  limit?: number;
  cursor?: string;
  page?: number;
};

export function createWebhookEventsService(deps: { db: Database; clock: Clock; signer: Signer }) {
  const { db, clock } = deps;
  const codec = createCursorCodec(deps.signer, 'webhook-events');

  return {
    /** Events newest first, each with its deliveries and their attempts, so a receiver can see what it missed. */
    async list(customerId: string, q: EventQuery) {
      const limit = q.limit ?? 25;
      const filter = { customerId, type: q.type, callId: q.call_id };
      const scope = [customerId, q.type ?? null, q.call_id ?? null];
      const start: repo.EventPageStart = q.cursor
        ? (() => {
            const p = codec.decode(q.cursor, scope);
            return { after: { atIso: p.at.iso, id: p.id } };
          })()
        : { offset: (q.page ?? 0) * limit };
      const rows = await repo.listEventRows(db, filter, start, limit + 1);
      const page = rows.slice(0, limit);
      const { deliveries, attempts } = await repo.deliveriesOf(
        db,
        page.map((r) => r.id),
      );
      const last = page[page.length - 1];
      const lastAt: Instant | null = last ? instantFromMicros(BigInt(last.position_micros)) : null;
      return {
        data: page.map((e) => ({
          ...envelopeOf(e),
          call_id: e.call_id,
          message_id: e.message_id,
          deliveries: deliveries
            .filter((d) => d.event_id === e.id)
            .map((d) => ({
              id: d.id,
              subscription_id: d.subscription_id,
              status: d.status,
              attempts: d.attempts,
              next_attempt_at: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
              delivered_at: d.delivered_at?.toISOString() ?? null,
              attempt_log: attempts
                .filter((a) => a.delivery_id === d.id)
                .map((a) => ({
                  at: a.attempted_at.toISOString(),
                  status_code: a.status_code,
                  latency_ms: a.latency_ms,
                  error: a.error,
                })),
            })),
        })),
        next_cursor:
          rows.length > limit && last && lastAt ? codec.encode({ at: lastAt, id: last.id }, scope) : null,
      };
    },

    /** One event again, to one subscription or every live subscription of its type, where not already pending. */
    async redeliverEvent(
      customerId: string,
      eventId: string,
      subscriptionId?: string,
    ): Promise<{ scheduled: number }> {
      if (!(await repo.eventExists(db, customerId, eventId))) throw notFound('Event');
      const live = await repo.subscriptionsForEvent(db, customerId, eventId);
      if (subscriptionId && !live.includes(subscriptionId)) {
        throw notFound('Webhook subscription for this event');
      }
      const targets = subscriptionId ? [subscriptionId] : live;
      let scheduled = 0;
      for (const id of targets) {
        scheduled += await repo.scheduleRedelivery(db, {
          customerId,
          subscriptionId: id,
          eventId,
          now: clock.now(),
          max: 1,
        });
      }
      return { scheduled };
    },

    /**
     * Catch-up after downtime or auto-disable: every event of the subscription's types since `since` (at most
     * REDELIVERY_WINDOW_DAYS back) that is not already pending for it.
     */
    async redeliverSince(
      customerId: string,
      subscriptionId: string,
      since: Date,
    ): Promise<{ scheduled: number }> {
      const earliest = new Date(clock.now().getTime() - REDELIVERY_WINDOW_DAYS * DAY_MS);
      if (since < earliest) {
        throw new AppError(
          'input.invalid',
          `Redelivery reaches back at most ${REDELIVERY_WINDOW_DAYS} days: give a since of ${earliest.toISOString()} or later.`,
          {
            issues: [
              { path: ['body', 'since'], message: `Must be no earlier than ${earliest.toISOString()}.` },
            ],
          },
        );
      }
      if (!(await findLive(db, customerId, subscriptionId))) throw notFound('Webhook subscription');
      const scheduled = await repo.scheduleRedelivery(db, {
        customerId,
        subscriptionId,
        since,
        now: clock.now(),
        max: MAX_REDELIVERY,
      });
      return { scheduled };
    },
  };
}

export type WebhookEventsService = ReturnType<typeof createWebhookEventsService>;
