import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { type ProviderDriver, startProviderDriver, type VoiceParts } from './driver.ts';

/** Demo traffic when the entry point does not say otherwise (DEMO_INBOUND_CALLS_PER_MINUTE). */
export const DEMO_INBOUND_CALLS_PER_MINUTE = 2;

/**
 * The server's background work for calls: applies the provider settings of the configuration to
 * the simulator and ticks it every second with the real clock (provider events, post-processing, reconciliation
 * of calls that have not ended at start and every RECONCILE_INTERVAL_SECONDS, and in demo mode a steady
 * trickle of inbound calls). Stop it before closing the database.
 */
export function startVoiceBackground(
  deps: {
    db: Database;
    parts: VoiceParts;
    config: Pick<
      Config,
      | 'providerFault'
      | 'providerSlowMs'
      | 'providerSettleSeconds'
      | 'demoInboundCallsPerMinute'
      | 'reconcileIntervalSeconds'
    >;
    clock: Clock;
    logger: Logger;
  },
  options: { demo: boolean },
): ProviderDriver {
  const { config, parts } = deps;
  parts.simulator.configure({
    fault: config.providerFault,
    slowMs: config.providerSlowMs,
    settleSeconds: config.providerSettleSeconds,
  });
  const inboundPerMinute =
    config.demoInboundCallsPerMinute ?? (options.demo ? DEMO_INBOUND_CALLS_PER_MINUTE : 0);
  if (config.providerFault !== 'none')
    deps.logger.warn({ fault: config.providerFault }, 'provider fault injected');
  return startProviderDriver({
    ...deps,
    inboundPerMinute,
    reconcileEverySeconds: config.reconcileIntervalSeconds,
  });
}
