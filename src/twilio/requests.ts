import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { SmsProviderError, SmsResult } from '../sms/index.ts';
import type { Read } from './answers.ts';
import { inSlot, type RequestSlot, type TwilioSdk } from './client.ts';
import { type Failure, failureOf, timedOut } from './failures.ts';

/** Each request we make of Twilio, as log lines name it. */
export type Operation =
  | 'messages.create'
  | 'messages.fetch'
  | 'accounts.fetch'
  | 'incoming_phone_numbers.list';

export type RequestSettings = {
  client: () => Promise<TwilioSdk>;
  authToken: string;
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
};

type Settled = { kind: 'answer'; value: unknown } | { kind: 'threw'; error: unknown } | { kind: 'deadline' };

/**
 * Every request to Twilio goes through `ask`: the SDK makes it, within our deadline (a request that hangs is
 * abandoned and aborted at `timeoutMs`, whatever the SDK does); `read` takes what we need of the answer
 * (answers.ts). Nothing throws: a failure is a value (failures.ts), logged once with its HTTP status, Twilio's code
 * and message, or the network error.
 */
export function createRequests(settings: RequestSettings) {
  const { client, timeoutMs, logger } = settings;

  async function settle(
    run: (sdk: TwilioSdk) => Promise<unknown>,
    slot: RequestSlot,
    abort: () => void,
  ): Promise<Settled> {
    // Loading the SDK asks nothing of Twilio: the deadline starts with the request.
    let sdk: TwilioSdk;
    try {
      sdk = await client();
    } catch (error) {
      return { kind: 'threw', error };
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<Settled>((resolve) => {
      timer = setTimeout(() => {
        resolve({ kind: 'deadline' });
        abort();
      }, timeoutMs);
    });
    const call = inSlot(slot, async () => run(sdk)).then(
      (value): Settled => ({ kind: 'answer', value }),
      (error: unknown): Settled => ({ kind: 'threw', error }),
    );
    try {
      return await Promise.race([call, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  function failed<T>(operation: Operation, failure: Failure): SmsResult<T> {
    logger.warn(
      { provider: 'twilio', operation, outcome: failure.outcome, ...failure.facts },
      `Twilio ${operation} failed: ${failure.error.detail}`,
    );
    return { ok: false, error: failure.error };
  }

  return {
    /**
     * `what` names the thing asked about in sentences ("message SM…"); `notFoundMeansUnknown` makes a 404 a
     * `not_found` (a fetch of one thing) rather than a failure of the request. `tookEffect`: a 2xx answer we
     * cannot read still did what was asked (a send), which its error says.
     */
    async ask<T>(
      operation: Operation,
      what: string,
      run: (sdk: TwilioSdk) => Promise<unknown>,
      read: (answer: unknown) => Read<T>,
      options: { notFoundMeansUnknown?: boolean; tookEffect?: string } = {},
    ): Promise<SmsResult<T>> {
      const controller = new AbortController();
      const slot: RequestSlot = { signal: controller.signal, status: null, retryAfter: null };
      const settled = await settle(run, slot, () => controller.abort());
      if (settled.kind === 'deadline') return failed(operation, timedOut(timeoutMs));
      const answered2xx = slot.status !== null && slot.status >= 200 && slot.status < 300;
      if (settled.kind === 'threw' && answered2xx && options.tookEffect) {
        // The SDK could not read a 2xx answer (not JSON, null): the send happened all the same.
        return failed(operation, {
          outcome: 'unreadable',
          facts: { status: slot.status, twilio_code: null, message: null, network_code: null },
          error: {
            code: 'timeout',
            retryable: false,
            detail: `Twilio's answer to ${operation} (${what}) could not be read. ${options.tookEffect}`,
            httpStatus: slot.status ?? 0,
          },
        });
      }
      if (settled.kind === 'threw') {
        return failed(
          operation,
          failureOf(settled.error, {
            what,
            notFoundMeansUnknown: options.notFoundMeansUnknown ?? false,
            timeoutMs,
            status: slot.status,
            retryAfter: slot.retryAfter,
            now: settings.clock.now(),
            authToken: settings.authToken,
          }),
        );
      }
      const answer = read(settled.value);
      if (!answer.ok) {
        const missing = answer.problems.join('; ');
        // A send Twilio answered 2xx did happen: `timeout` (took effect or not, we cannot tell) keeps the message and
        // waits for its status callback, where `unavailable` would have the client send it a second time.
        const error: SmsProviderError = {
          code: options.tookEffect ? 'timeout' : 'unavailable',
          retryable: !options.tookEffect,
          detail: `Twilio's answer to ${operation} (${what}) lacks what we need: ${missing}.${options.tookEffect ? ` ${options.tookEffect}` : ''}`,
          ...(slot.status === null ? {} : { httpStatus: slot.status }),
        };
        logger.warn(
          {
            provider: 'twilio',
            operation,
            outcome: 'unreadable',
            status: slot.status,
            fields: answer.problems,
          },
          error.detail,
        );
        return { ok: false, error };
      }
      if (answer.drift.length > 0) {
        logger.warn(
          { provider: 'twilio', operation, fields: answer.drift },
          `Twilio's answer to ${operation} (${what}) drifted; read without: ${answer.drift.join('; ')}`,
        );
      }
      return { ok: true, value: answer.value };
    },
  };
}

export type Requests = ReturnType<typeof createRequests>;
