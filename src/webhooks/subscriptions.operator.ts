import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { activated, activeChanges, attemptLogOf, type SubscriptionView } from './subscription-actions.ts';
import { findAnyAsOperator, updateAsOperator } from './subscriptions.repository.ts';

/**
 * The operator's subscription actions (the CLI): any customer's subscription, found by id. Never reached from the
 * API or the dashboard, which use the customer's own (`createSubscriptionsService`).
 */
export function createSubscriptionsOperator(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /** Any customer's subscription log. */
    async deliveryLog(id: string, limit = 50) {
      return attemptLogOf(db, await findAnyAsOperator(db, id), limit);
    },
    /** Any customer's subscription switched on or off; otherwise as the customer's `setActive`. */
    async setActive(id: string, active: boolean): Promise<SubscriptionView> {
      return activated(await updateAsOperator(db, id, activeChanges(clock.now(), active)));
    },
  };
}
