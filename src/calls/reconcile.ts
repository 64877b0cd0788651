import { providerForMode } from '../provider/index.ts';
import { applyProviderEvent, endLostCall } from './apply-event.ts';
import { openCalls } from './lifecycle.repository.ts';
import type { LifecycleDeps } from './lifecycle-deps.ts';

/** What ends a call its provider no longer knows: status `failed`, this `disconnect_reason`. */
export const PROVIDER_LOST = 'provider_lost';
/** What ends a call that never got a provider handle (placement crashed between our commit and the answer). */
export const PLACEMENT_LOST = 'placement_lost';
/**
 * A call without a provider handle this old is taken as never placed: a placement answers or times out within
 * PROVIDER_TIMEOUT_MS (at most 120 s), and a provider that did accept it has sent its first event long before.
 */
export const UNPLACED_AFTER_SECONDS = 600;
const BATCH = 200;

export type ReconcileReport = { checked: number; applied: number; lost: number; retryLater: number };

/**
 * Catches every call that has not ended up with its provider: the provider's account of the call (`callEvents`)
 * goes through `applyProviderEvent`, the same path as live events, so duplicates and out-of-order events are
 * ignored by the state machine, each under the call's row lock. Several instances may run it at once: the
 * worst they do is ask twice. A call the provider no longer knows, or one never placed, ends `failed` and is
 * post-processed like any ended call (`call.completed`); a provider error leaves the call for the next round.
 * Once `signal` is aborted (the server is stopping) the round ends after the call in hand.
 */
export async function reconcileOpenCalls(
  deps: LifecycleDeps,
  signal?: AbortSignal,
): Promise<ReconcileReport> {
  const report: ReconcileReport = { checked: 0, applied: 0, lost: 0, retryLater: 0 };
  const unplacedBefore = new Date(deps.clock.now().getTime() - UNPLACED_AFTER_SECONDS * 1000);
  const end = async (callId: string, reason: string) => {
    if ((await endLostCall(deps, callId, reason)) === 'applied') report.lost += 1;
  };
  let after: { createdAt: Date; callId: string } | null = null;
  for (;;) {
    const page = await openCalls(deps.db, { after, limit: BATCH });
    for (const call of page) {
      if (signal?.aborted) return report;
      report.checked += 1;
      if (!call.provider_call_id) {
        if (call.created_at < unplacedBefore) await end(call.call_id, PLACEMENT_LOST);
        continue;
      }
      const known = await providerForMode(deps, call.livemode).callEvents(call.provider_call_id);
      if (known.ok) {
        for (const event of known.value) {
          if ((await applyProviderEvent(deps, event)) === 'applied') report.applied += 1;
        }
      } else if (known.error.code === 'not_found') {
        await end(call.call_id, PROVIDER_LOST);
      } else {
        report.retryLater += 1;
        deps.logger?.warn(
          { call_id: call.call_id, error: known.error },
          'reconcile: provider error, next round',
        );
      }
    }
    const last = page.at(-1);
    if (!last || page.length < BATCH) return report;
    after = { createdAt: last.created_at, callId: last.call_id };
  }
}
