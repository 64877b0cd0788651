import type { Logger } from 'pino';
import type { SmsProvider, SmsResult } from './sms-provider.ts';

/**
 * Whatever an SMS provider does, callers get an SmsResult: a throw becomes `unavailable`, an answer slower than
 * `timeoutMs` becomes `timeout` (the message may have gone: the send keeps it and waits for its status).
 */
export function guardSmsProvider(
  inner: SmsProvider,
  options: { timeoutMs: number; logger: Logger },
): SmsProvider {
  async function guard<T>(op: string, run: () => Promise<SmsResult<T>>): Promise<SmsResult<T>> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<SmsResult<T>>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            ok: false,
            error: {
              code: 'timeout',
              retryable: true,
              detail: `The SMS provider did not answer within ${options.timeoutMs} ms.`,
            },
          }),
        options.timeoutMs,
      );
    });
    try {
      const result = await Promise.race([run(), timeout]);
      if (!result.ok)
        options.logger.warn(
          { op, provider: inner.name, error: result.error },
          'SMS provider refused or failed',
        );
      return result;
    } catch (err) {
      options.logger.error({ op, provider: inner.name, err }, 'SMS provider threw');
      return {
        ok: false,
        error: { code: 'unavailable', retryable: true, detail: 'The SMS provider is unavailable.' },
      };
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    name: inner.name,
    send: (request) => guard('send', () => inner.send(request)),
    status: (id) => guard('status', () => inner.status(id)),
  };
}
