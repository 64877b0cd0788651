import type { Database } from '../db/index.ts';
import {
  type AttemptOutcome,
  lockCountedSubscriptions,
  type SubscriptionCount,
  writeOutcomes,
} from './attempts.repository.ts';
import { runStreak, type StreakStep } from './failure-streak.ts';

export type Disabled = { subscriptionId: string; deliveryId: string; reason: string };

const stepOf = (o: AttemptOutcome): StreakStep => ({
  kind: o.status === 'delivered' ? 'delivered' : o.statusCode === 410 ? 'gone' : 'failed',
  startedAt: o.startedAt,
  endedAt: o.at,
});

/**
 * Records a batch of finished attempts (in the order they finished) at once: attempt rows, delivery states,
 * and each subscription's failure count (src/webhooks/failure-streak.ts) as if the attempts had been recorded one
 * by one.
 * Returns the subscriptions the batch disabled, each with the attempt that did it.
 */
export async function completeAttempts(db: Database, outcomes: AttemptOutcome[]): Promise<Disabled[]> {
  const bySubscription = Map.groupBy(outcomes, (o) => o.subscriptionId);
  const failing = [...bySubscription]
    .filter(([, mine]) => mine.some((o) => o.status !== 'delivered'))
    .map(([id]) => id);
  // Without a failure there are only counts to reset: one statement, no transaction round trips.
  if (failing.length === 0) {
    await writeOutcomes(db, outcomes, [], [...bySubscription.keys()]);
    return [];
  }
  // With one, the counts are read under lock and worked out here, in the same transaction.
  return db.transaction().execute(async (tx) => {
    const locked = await lockCountedSubscriptions(tx, [...bySubscription.keys()], failing);
    const counts: SubscriptionCount[] = [];
    const disabled: Disabled[] = [];
    for (const row of locked) {
      const mine = bySubscription.get(row.id) ?? [];
      const streak = runStreak(
        { failures: row.consecutive_failures, active: row.is_active, countedAt: row.failure_counted_at },
        mine.map(stepOf),
      );
      const by = streak.disabled ? mine[streak.disabled.step] : undefined;
      counts.push({
        id: row.id,
        failures: streak.failures,
        countedAt: streak.countedAt,
        disabledAt: by?.at ?? null,
        disabledReason: streak.disabled?.reason ?? null,
      });
      if (by && streak.disabled)
        disabled.push({ subscriptionId: row.id, deliveryId: by.deliveryId, reason: streak.disabled.reason });
    }
    await writeOutcomes(tx, outcomes, counts, []);
    return disabled;
  });
}
