import type { Runtime } from '../runtime.ts';
import { type ProviderDriver, startProviderDriver } from './driver.ts';

/** Demo traffic when the entry point does not say otherwise (DEMO_INBOUND_CALLS_PER_MINUTE). */
export const DEMO_INBOUND_CALLS_PER_MINUTE = 2;

/**
 * The server's background part of issue 4: applies the provider settings of the configuration to
 * the simulator and ticks it every second with the real clock (provider events, post-processing,
 * and in demo mode a steady trickle of inbound calls). Stop it before closing the database.
 */
export function startVoiceBackground(
  runtime: Pick<Runtime, 'services' | 'config' | 'clock' | 'logger' | 'database'>,
  options: { demo: boolean },
): ProviderDriver {
  const { config, services } = runtime;
  services.simulator.configure({
    fault: config.providerFault,
    slowMs: config.providerSlowMs,
    settleSeconds: config.providerSettleSeconds,
  });
  const inboundPerMinute =
    config.demoInboundCallsPerMinute ?? (options.demo ? DEMO_INBOUND_CALLS_PER_MINUTE : 0);
  if (config.providerFault !== 'none')
    runtime.logger.warn({ fault: config.providerFault }, 'provider fault injected');
  return startProviderDriver({
    db: runtime.database.db,
    parts: services,
    clock: runtime.clock,
    logger: runtime.logger,
    inboundPerMinute,
  });
}
