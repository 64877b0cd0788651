import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import type { ProviderEvent, VoiceProvider } from '../provider/interface.ts';
import { type ApplyOutcome, applyProviderEvent } from './apply-event.ts';
import { processDue } from './post-process.ts';

/** Applies the provider's events to our calls and runs post-processing; the simulator driver calls both. */
export function createLifecycleService(deps: {
  db: Database;
  clock: Clock;
  provider: VoiceProvider;
  logger?: Logger;
}) {
  return {
    applyProviderEvent: (event: ProviderEvent): Promise<ApplyOutcome> => applyProviderEvent(deps, event),
    /** Finishes every ended call whose post-processing is due; returns how many were finished. */
    processDue: (limit?: number): Promise<number> => processDue(deps, limit),
  };
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
