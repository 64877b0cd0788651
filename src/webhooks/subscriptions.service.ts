import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/index.ts';
import { isLiveCustomer } from '../customers/index.ts';
import type { Database, SubscriptionRow } from '../db/index.ts';
import { checkTargetUrl, invalidTargetInput, newWebhookSecret } from '../delivery/index.ts';
import { AppError, type Issue, notFound } from '../errors/index.ts';
import { newSubscriptionId } from '../ids.ts';
import { EVENT_TYPES } from './event-types.ts';
import {
  activated,
  activeChanges,
  attemptLogOf,
  rowToSubscription,
  type SubscriptionView,
} from './subscription-actions.ts';
import * as repo from './subscriptions.repository.ts';

export type SubscriptionsDeps = {
  db: Database;
  clock: Clock;
  secretBox: SecretBox;
  maxPerCustomer: number;
  allowHttpTargets: boolean;
  allowPrivateTargets: boolean;
  /** How long a rotated-out secret still signs deliveries (second signature header). */
  secretRotationGraceSeconds: number;
};

function checkEvents(events: readonly string[]): Issue[] {
  if (events.length === 0) return [{ path: ['body', 'events'], message: 'Subscribe to at least one event.' }];
  return events.flatMap((e, i): Issue[] => {
    if ((EVENT_TYPES as readonly string[]).includes(e)) return [];
    return [
      {
        path: ['body', 'events', String(i)],
        message: `Unknown event "${e}"; one of ${EVENT_TYPES.join(', ')}.`,
      },
    ];
  });
}

export function createSubscriptionsService(deps: SubscriptionsDeps) {
  const { db, clock, secretBox } = deps;

  async function requireLive(customerId: string, id: string): Promise<SubscriptionRow> {
    const row = await repo.findLive(db, customerId, id);
    if (!row) throw notFound('Webhook subscription');
    return row;
  }

  return {
    /** Idempotent on (url, set of events): an existing live subscription comes back without its secret. */
    async subscribe(
      customerId: string,
      input: { url: string; events: readonly string[]; description?: string | undefined },
    ): Promise<{ created: boolean; subscription: SubscriptionView }> {
      const issues = [...checkTargetUrl(input.url, deps, ['body', 'url']), ...checkEvents(input.events)];
      if (issues.length > 0) throw invalidTargetInput(issues);
      const events = [...new Set(input.events)].sort();
      const eventsKey = events.join(',');
      const existing = await repo.findByIdentity(db, customerId, input.url, eventsKey);
      if (existing) return { created: false, subscription: rowToSubscription(existing) };
      if ((await repo.countLive(db, customerId)) >= deps.maxPerCustomer) {
        throw new AppError(
          'resource.conflict',
          `A customer can have at most ${deps.maxPerCustomer} webhook subscriptions; delete one first.`,
        );
      }
      const secret = newWebhookSecret();
      const inserted = await repo.insertIfNew(db, {
        id: newSubscriptionId(),
        customer_id: customerId,
        livemode: await isLiveCustomer(db, customerId),
        url: input.url,
        events,
        events_key: eventsKey,
        description: input.description ?? '',
        secret_encrypted: secretBox.seal(secret),
        previous_secret_encrypted: null,
        previous_secret_expires_at: null,
        is_active: true,
        consecutive_failures: 0,
        failure_counted_at: null,
        disabled_at: null,
        disabled_reason: null,
        created_at: clock.now(),
        deleted_at: null,
      });
      if (!inserted) {
        // A concurrent identical request won the race: answer as the idempotent repeat it is.
        const winner = await repo.findByIdentity(db, customerId, input.url, eventsKey);
        if (!winner) throw new AppError('resource.conflict', 'The subscription changed concurrently; retry.');
        return { created: false, subscription: rowToSubscription(winner) };
      }
      return { created: true, subscription: { ...rowToSubscription(inserted), secret } };
    },

    async list(customerId: string, limit: number, offset: number): Promise<SubscriptionView[]> {
      return (await repo.listLive(db, customerId, limit, offset)).map(rowToSubscription);
    },

    async get(customerId: string, id: string): Promise<SubscriptionView> {
      return rowToSubscription(await requireLive(customerId, id));
    },

    async unsubscribe(customerId: string, id: string): Promise<void> {
      const row = await repo.update(db, customerId, id, { deleted_at: clock.now(), is_active: false });
      if (!row) throw notFound('Webhook subscription');
    },

    /** A new secret; the old one keeps signing (as a second header) for the grace period. */
    async rotateSecret(customerId: string, id: string) {
      const row = await requireLive(customerId, id);
      const secret = newWebhookSecret();
      const previousUntil = new Date(clock.now().getTime() + deps.secretRotationGraceSeconds * 1000);
      const updated = await repo.update(db, customerId, id, {
        secret_encrypted: secretBox.seal(secret),
        previous_secret_encrypted: row.secret_encrypted,
        previous_secret_expires_at: previousUntil,
      });
      if (!updated) throw notFound('Webhook subscription');
      return {
        ...rowToSubscription(updated),
        secret,
        previous_secret_expires_at: previousUntil.toISOString(),
      };
    },

    /** Each attempt: time, status code, latency, error, with its delivery and event. */
    async deliveryLog(customerId: string, id: string, limit = 50) {
      return attemptLogOf(db, await repo.findLive(db, customerId, id), limit);
    },

    async listForCustomer(customerId: string): Promise<SubscriptionView[]> {
      return (await repo.listLive(db, customerId, 1000, 0)).map(rowToSubscription);
    },

    /** Re-enabling (dashboard) resumes delivery and starts the failure count again. */
    async setActive(customerId: string, id: string, active: boolean): Promise<SubscriptionView> {
      return activated(await repo.update(db, customerId, id, activeChanges(clock.now(), active)));
    },
  };
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;
