import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { type Loop, type LoopLogger, startLoop } from '../loop.ts';
import * as repo from './messages.repository.ts';
import type { SmsInbox, SmsProvider } from './sms-provider.ts';

type Inbox = SmsInbox & { unconfirmed(messageId: string, now: Date): Promise<void> };

const BATCH = 100;
/** A message the provider never confirmed (its send timed out) and no callback named: failed after this long. */
const UNCONFIRMED_AFTER_MS = 3600_000;

/**
 * One pass: every outbound message still without a final status `afterSeconds` after it was queued is asked about;
 * what the provider answers is applied as a report (the same rules as a callback's). A message with no provider id
 * (its send timed out) fails once an hour has passed with no word of it. Returns how many were applied.
 */
export async function reconcileMessages(deps: {
  db: Database;
  clock: Clock;
  afterSeconds: number;
  providers: Record<string, { provider: SmsProvider; inbox: Inbox }>;
}): Promise<number> {
  const now = deps.clock.now();
  const stale = await repo.unsettled(deps.db, new Date(now.getTime() - deps.afterSeconds * 1000), BATCH);
  let applied = 0;
  for (const m of stale) {
    const carrier = deps.providers[m.provider];
    if (!carrier) continue;
    if (!m.provider_message_id) {
      if (now.getTime() - m.created_at.getTime() < UNCONFIRMED_AFTER_MS) continue;
      await carrier.inbox.unconfirmed(m.id, now);
      applied++;
      continue;
    }
    const answer = await carrier.provider.status(m.provider_message_id);
    if (!answer.ok) continue;
    if ((await carrier.inbox.statusReported(answer.value)) === 'applied') applied++;
  }
  return applied;
}

/** The pass every RECONCILE_INTERVAL_SECONDS (and once at start); stop it before closing the database. */
export function startSmsReconcileLoop(
  deps: Parameters<typeof reconcileMessages>[0] & { intervalMs: number; logger: LoopLogger },
): Loop {
  return startLoop(
    { name: 'sms reconciliation', intervalMs: deps.intervalMs, logger: deps.logger },
    async () => {
      await reconcileMessages(deps);
    },
  );
}
