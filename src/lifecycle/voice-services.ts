import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { createCallbackSecrets } from '../outbound/callback-signing.ts';
import { createOutboundService } from '../outbound/outbound.service.ts';
import { guardProvider } from '../provider/guarded.ts';
import { createSimulator } from '../provider/simulator.ts';
import type { Signer } from '../signer.ts';
import { createTranscriptsService } from '../transcripts/transcripts.service.ts';
import { createLifecycleService } from './lifecycle.service.ts';

/**
 * Issue 4's part of the domain layer: the provider (the built-in simulator, behind a guard that
 * turns every failure into a value), the call lifecycle, outbound calls, transcripts and callback
 * signing secrets. The simulator is on the injected clock; its faults are set with `configure`.
 */
export function createVoiceServices(deps: { db: Database; clock: Clock; signer: Signer; logger: Logger }) {
  const simulator = createSimulator({ clock: deps.clock });
  const provider = guardProvider(simulator, { logger: deps.logger });
  const withProvider = { ...deps, provider };
  return {
    simulator,
    provider,
    lifecycle: createLifecycleService(withProvider),
    outbound: createOutboundService(withProvider),
    transcripts: createTranscriptsService(withProvider),
    callbackSecrets: createCallbackSecrets(deps),
  };
}
