import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { CallbackNotificationRow, Database } from '../db/index.ts';
import { claimOldestDue } from '../db/index.ts';
import type { WebhookSender } from '../delivery/index.ts';
import { nextAttemptDelayMs, signPayload, unixSeconds } from '../delivery/index.ts';
import type { CallbackSecrets } from './callback-signing.ts';

/**
 * Delivers `callback_url` notifications (the outbox of src/outbound): same sender, SSRF guard, retry
 * schedule and signature scheme as webhooks, keyed with the customer's callback secret. There is no
 * subscription to disable: a notification that keeps failing is given up after the last retry.
 */
export function createCallbackDelivery(deps: {
  db: Database;
  clock: Clock;
  sender: WebhookSender;
  secrets: Pick<CallbackSecrets, 'secretFor'>;
  logger: Logger;
  leaseMs: number;
  random?: () => number;
}) {
  const { db, clock } = deps;

  const claim = (limit: number): Promise<CallbackNotificationRow[]> =>
    claimOldestDue<CallbackNotificationRow>(
      db,
      { table: 'callback_notifications', key: 'id', state: 'state' },
      { now: clock.now(), limit, leaseMs: deps.leaseMs, returning: sql`q.*` },
    );

  async function send(n: CallbackNotificationRow): Promise<void> {
    const { secret } = await deps.secrets.secretFor(n.customer_id);
    const timestamp = unixSeconds(clock.now());
    const result = await deps.sender.send(
      n.url,
      {
        'content-type': 'application/json',
        'user-agent': 'VoiceCallsAPI-Callbacks/1.0',
        'x-svc-event': n.event,
        'x-svc-timestamp': String(timestamp),
        'x-svc-signature-256': signPayload(secret, timestamp, n.body),
      },
      n.body,
    );
    const at = clock.now();
    if (result.ok) {
      await db
        .updateTable('callback_notifications')
        .set({
          state: 'delivered',
          delivered_at: at,
          leased_until: null,
          last_status_code: result.statusCode,
          last_error: null,
        })
        .where('id', '=', n.id)
        .execute();
      return;
    }
    const delay = nextAttemptDelayMs(n.attempts, deps.random);
    await db
      .updateTable('callback_notifications')
      .set({
        state: delay === null ? 'failed' : 'pending',
        next_attempt_at: delay === null ? n.next_attempt_at : new Date(at.getTime() + delay),
        leased_until: null,
        last_status_code: result.statusCode,
        last_error: (result.error ?? 'failed').slice(0, 500),
      })
      .where('id', '=', n.id)
      .execute();
  }

  return {
    /** Sends every notification due now (up to `limit`), concurrently; returns how many. */
    async runOnce(limit = 50): Promise<number> {
      const due = await claim(limit);
      await Promise.all(
        due.map((n) =>
          send(n).catch((err: unknown) => deps.logger.error({ err, id: n.id }, 'callback attempt crashed')),
        ),
      );
      return due.length;
    },
  };
}

export type CallbackDelivery = ReturnType<typeof createCallbackDelivery>;
