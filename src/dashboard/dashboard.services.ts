import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import { createWebhookSender, type SenderNetwork, type WebhookSender } from '../delivery/http-sender.ts';
import { sendTestEvent } from '../webhooks/test-event.ts';
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
