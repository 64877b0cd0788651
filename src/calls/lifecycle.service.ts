import type { ProviderEvent } from '../provider/index.ts';
import { type ApplyOutcome, applyProviderEvent } from './apply-event.ts';
import type { LifecycleDeps } from './lifecycle-deps.ts';
import { processDue } from './post-process.ts';
import { type ReconcileReport, reconcileOpenCalls } from './reconcile.ts';

/** Applies the provider's events to our calls, runs post-processing and reconciles; the driver calls them. */
export function createLifecycleService(deps: LifecycleDeps) {
  return {
    applyProviderEvent: (event: ProviderEvent): Promise<ApplyOutcome> => applyProviderEvent(deps, event),
    /** Finishes every ended call whose post-processing is due; returns how many were finished. */
    processDue: (limit?: number): Promise<number> => processDue(deps, limit),
    /** Catches every call that has not ended up with its provider (at start, then periodically). */
    reconcile: (signal?: AbortSignal): Promise<ReconcileReport> => reconcileOpenCalls(deps, signal),
  };
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
