import type { Logger } from 'pino';
import { callInsights } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/index.ts';
import type { Database } from '../db/index.ts';
import { createWebhookSender, type SenderNetwork, type WebhookSender } from '../delivery/index.ts';
import { createCursorCodec, positionOfRow, SERIAL_IDS } from '../pagination/index.ts';
import type { Signer } from '../signer.ts';
import type { UsageService } from '../usage/index.ts';
import { deliveryAttempt, deliveryLog, deliveryStats, sendTestEvent } from '../webhooks/index.ts';
import { attemptBody, attemptHeaders } from './attempt-view.ts';
import { createSessionsService } from './sessions.service.ts';
import { createUsageReports } from './usage-report.ts';
import { createUsersService } from './users.service.ts';

/** Attempts per page of the delivery log unless `limit` says otherwise: the default of GET /webhook-events. */
export const LOG_PAGE_SIZE = 25;

/** A page of the delivery log: the filter, and where the page starts (as GET /webhook-events takes them). */
export type DeliveryLogQuery = {
  failedOnly: boolean;
  limit: number;
  cursor?: string | undefined;
  page: number;
};

export type DashboardDeps = {
  db: Database;
  clock: Clock;
  secretBox: SecretBox;
  signer: Signer;
  logger: Logger;
  /** The API's request counter (usage/): the usage page reads it. */
  usage: UsageService;
  webhooks: {
    allowHttpTargets: boolean;
    allowPrivateTargets: boolean;
    timeoutMs: number;
    network?: SenderNetwork | undefined;
  };
};

/** The dashboard's part of the domain layer: users, sessions, the usage report and the reads it alone needs. */
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
  const logCursors = createCursorCodec(deps.signer, 'delivery-log-cursor', SERIAL_IDS);
  return {
    users: createUsersService(deps),
    sessions: createSessionsService(deps),
    usage: createUsageReports(deps),
    /** The AI insights of one of the customer's calls (none for another customer's). */
    callInsights: (customerId: string, callId: string) => callInsights(db, customerId, callId),
    /**
     * One page of an endpoint's delivery log, paged as the API's lists are: `cursor` (keyset, bound to the
     * customer, endpoint and filter) wins over `page` (offset = page × limit); `next_cursor` is null at the end.
     */
    async deliveryLog(customerId: string, subscriptionId: string, q: DeliveryLogQuery) {
      const scope = [customerId, subscriptionId, q.failedOnly ? 'failed' : 'all'];
      const after = q.cursor ? logCursors.decode(q.cursor, scope) : null;
      const rows = await deliveryLog(db, customerId, subscriptionId, {
        failedOnly: q.failedOnly,
        start: after ? { after: { atIso: after.at.iso, id: after.id } } : { offset: q.page * q.limit },
        limit: q.limit + 1,
      });
      const data = rows.slice(0, q.limit);
      const last = data.at(-1);
      return {
        data,
        next_cursor:
          rows.length > q.limit && last
            ? logCursors.encode(
                positionOfRow({ id: String(last.id), position_micros: last.position_micros }),
                scope,
              )
            : null,
      };
    },
    /** One attempt as it was sent (headers with signatures redacted, body) and the start of the answer. */
    async deliveryAttempt(customerId: string, subscriptionId: string, attemptId: number) {
      const row = await deliveryAttempt(db, customerId, subscriptionId, attemptId);
      if (!row) return undefined;
      return { ...row, headers: attemptHeaders(row), body: attemptBody(row) };
    },
    /** An endpoint's success rate and latency, per hour over the last 24 h and per day over the last 7 days. */
    async deliveryCharts(customerId: string, subscriptionId: string) {
      const now = clock.now().getTime();
      const hourStart = now - (now % 3_600_000);
      const dayStart = now - (now % 86_400_000);
      const [hours, days] = await Promise.all([
        deliveryStats(db, customerId, subscriptionId, new Date(hourStart - 23 * 3_600_000), 'hour'),
        deliveryStats(db, customerId, subscriptionId, new Date(dayStart - 6 * 86_400_000), 'day'),
      ]);
      return { hourStart: new Date(hourStart), dayStart: new Date(dayStart), hours, days };
    },
    sendTestEvent: (customerId: string, subscriptionId: string) =>
      sendTestEvent({ ...deps, sender: senderFor() }, customerId, subscriptionId),
    /** Closes the test-event connection pool (app shutdown). */
    async close(): Promise<void> {
      const s = sender;
      sender = null;
      await s?.close();
    },
  };
}

export type DashboardServices = ReturnType<typeof createDashboardServices>;
