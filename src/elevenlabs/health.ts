import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { type Loop, startLoop } from '../loop.ts';
import type { ProviderError, ProviderHealth, ProviderResult } from '../provider/index.ts';

const stateOf = (error: ProviderError): ProviderHealth['state'] => {
  if (error.code === 'busy') return 'ok';
  if (error.httpStatus === 401 || error.httpStatus === 403) return 'unauthorized';
  if (error.code === 'timeout' || error.httpStatus === undefined) return 'unreachable';
  return 'failing';
};

const SAY: Record<ProviderHealth['state'], string> = {
  ok: 'answers',
  unknown: 'not checked yet',
  unreachable: 'cannot be reached',
  unauthorized: 'refuses the API key (ELEVENLABS_API_KEY)',
  failing: 'answers with errors',
};

/**
 * Whether ElevenLabs answers our key, from one cheap request (one agent of the list) every interval, not per
 * `/readyz`: the answer is kept and read by `/readyz` and the banner. A change is logged once (a warning when it
 * turns bad, info when it is back), never every check.
 */
export function createElevenLabsHealth(deps: {
  probe: () => Promise<ProviderResult<unknown>>;
  clock: Clock;
  logger: Logger;
  baseUrl: string;
}) {
  let health: ProviderHealth = {
    name: 'elevenlabs',
    state: 'unknown',
    checked_at: null,
    since: null,
    detail: null,
  };

  async function check(): Promise<ProviderHealth> {
    const result = await deps.probe();
    const now = deps.clock.now().toISOString();
    const state = result.ok ? 'ok' : stateOf(result.error);
    const detail = result.ok ? null : result.error.detail;
    const changed = state !== health.state;
    health = { name: 'elevenlabs', state, checked_at: now, since: changed ? now : health.since, detail };
    if (changed && state !== 'ok') {
      deps.logger.warn(
        { provider: 'elevenlabs', state, base_url: deps.baseUrl, detail },
        `ElevenLabs ${SAY[state]} at ${deps.baseUrl}: ${detail}`,
      );
    } else if (changed) {
      deps.logger.info(
        { provider: 'elevenlabs', state, base_url: deps.baseUrl },
        `ElevenLabs answers at ${deps.baseUrl}`,
      );
    }
    return health;
  }

  return {
    check,
    current: (): ProviderHealth => health,
    /** The `/readyz` warning and the banner's, while the last check found it anything but well. */
    warning(): string | null {
      if (health.state === 'ok' || health.state === 'unknown') return null;
      return `ElevenLabs ${SAY[health.state]} at ${deps.baseUrl} since ${health.since}: ${health.detail}`;
    },
    /** A check every `intervalSeconds` (PROVIDER_CHECK_INTERVAL_SECONDS) after the first, which `serve` awaits. */
    start(o: { intervalSeconds: number; logger: Logger }): Loop {
      return startLoop(
        { name: 'ElevenLabs health check', intervalMs: o.intervalSeconds * 1000, logger: o.logger },
        check,
      );
    },
  };
}

export type ElevenLabsHealth = ReturnType<typeof createElevenLabsHealth>;
