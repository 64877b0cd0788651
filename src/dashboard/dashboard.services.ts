import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import { createWebhookSender, type SenderNetwork, type WebhookSender } from '../delivery/http-sender.ts';
import { sendTestEvent } from '../webhooks/test-event.ts';
import { attemptBody, attemptHeaders } from './attempt-view.ts';
import * as reads from './dashboard.repository.ts';
import { createSessionsService } from './sessions.service.ts';
import { createUsageService } from './usage.service.ts';
import { createUsersService } from './users.service.ts';

export type DashboardDeps = {
  db: Database;
  clock: Clock;
  secretBox: SecretBox;
  logger: Logger;
  webhooks: {
    allowHttpTargets: boolean;
    allowPrivateTargets: boolean;
    timeoutMs: number;
    network?: SenderNetwork | undefined;
  };
};

/** The dashboard's part of the domain layer: users, sessions, usage counting and the reads it alone needs. */
export function createDashboardServices(deps: DashboardDeps) {
  const { db, clock } = deps;
  let sender: WebhookSender | null = null;
  const senderFor = (): WebhookSender => {
    sender ??= createWebhookSender({
      timeoutMs: deps.webhooks.timeoutMs,
      allowHttp: deps.webhooks.allowHttpTargets,
      allowPrivateTargets: deps.webhooks.allowPrivateTargets,
      logger: deps.logger,
      ...deps.webhooks.network,
    });
    return sender;
  };
  const usage = createUsageService(deps);
  return {
    users: createUsersService(deps),
    sessions: createSessionsService(deps),
    usage,
    /** When each of the customer's keys in a rotation grace period stops accepting its previous value. */
    graceEnds: (customerId: string) => reads.graceEnds(db, customerId, clock.now()),
    callInsights: (customerId: string, callId: string) => reads.callInsights(db, customerId, callId),
    deliveryLog: (customerId: string, subscriptionId: string, o: { failedOnly: boolean; limit: number }) =>
      reads.deliveryLog(db, customerId, subscriptionId, o),
    /** One attempt as it was sent (headers with signatures redacted, body) and the start of the answer. */
    async deliveryAttempt(customerId: string, subscriptionId: string, attemptId: number) {
      const row = await reads.deliveryAttempt(db, customerId, subscriptionId, attemptId);
      if (!row) return undefined;
      return { ...row, headers: attemptHeaders(row), body: attemptBody(row) };
    },
    /** An endpoint's success rate and latency, per hour over the last 24 h and per day over the last 7 days. */
    async deliveryCharts(customerId: string, subscriptionId: string) {
      const now = clock.now().getTime();
      const hourStart = now - (now % 3_600_000);
      const dayStart = now - (now % 86_400_000);
      const [hours, days] = await Promise.all([
        reads.deliveryStats(db, customerId, subscriptionId, new Date(hourStart - 23 * 3_600_000), 'hour'),
        reads.deliveryStats(db, customerId, subscriptionId, new Date(dayStart - 6 * 86_400_000), 'day'),
      ]);
      return { hourStart: new Date(hourStart), dayStart: new Date(dayStart), hours, days };
    },
    sendTestEvent: (customerId: string, subscriptionId: string) =>
      sendTestEvent({ ...deps, sender: senderFor() }, customerId, subscriptionId),
    /** Flushes usage counts and closes the test-event connection pool (app shutdown). */
    async close(): Promise<void> {
      await usage.stop();
      const s = sender;
      sender = null;
      await s?.close();
    },
  };
}

export type DashboardServices = ReturnType<typeof createDashboardServices>;
