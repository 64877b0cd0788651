import type { Logger } from 'pino';
import { fail, providerTimeout, providerUnavailable } from './errors.ts';
import type { ProviderResult, VoiceProvider } from './interface.ts';

export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;

/**
 * Wraps a provider so that whatever it does, callers get a ProviderResult: a thrown error becomes
 * `unavailable`, an answer slower than `timeoutMs` becomes `timeout`. No provider failure can
 * surface as a 500.
 */
export function guardProvider(
  inner: VoiceProvider,
  options: {
    timeoutMs?: number;
    logger?: Logger;
    /** Log each failed result (off for a provider that logs its own, with more to say: ElevenLabs). */
    logFailures?: boolean;
  } = {},
): VoiceProvider {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  async function guard<T>(op: string, run: () => Promise<ProviderResult<T>>): Promise<ProviderResult<T>> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ProviderResult<T>>((resolve) => {
      timer = setTimeout(() => resolve(fail(providerTimeout(timeoutMs))), timeoutMs);
    });
    try {
      const result = await Promise.race([run(), timeout]);
      if (!result.ok && options.logFailures !== false) {
        options.logger?.warn({ op, error: result.error }, 'provider call failed');
      }
      return result;
    } catch (err) {
      options.logger?.error({ op, err }, 'provider call threw');
      return fail(providerUnavailable());
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    placeCall: (request) => guard('placeCall', () => inner.placeCall(request)),
    getConversation: (id) => guard('getConversation', () => inner.getConversation(id)),
    callEvents: (id) => guard('callEvents', () => inner.callEvents(id)),
  };
}
