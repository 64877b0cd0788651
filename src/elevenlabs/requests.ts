import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import type { Logger } from 'pino';
import type { ProviderError, ProviderObserver, ProviderResult } from '../provider/index.ts';
import { fail, ok } from '../provider/index.ts';
import type { Read } from './answers.ts';

/** Each request we make of ElevenLabs, as logs and `provider_requests_total{operation}` name it. */
export type Operation =
  | 'conversations.get'
  | 'conversations.list'
  | 'twilio.outbound_call'
  | 'sip_trunk.outbound_call'
  | 'agents.get'
  | 'agents.list'
  | 'phone_numbers.get';

export type RequestSettings = {
  apiKey: string;
  baseUrl: string;
  /** Our limit on every request; the SDK never retries on its own (maxRetries 0): we decide what a retry means. */
  timeoutMs: number;
  logger: Logger;
  observer?: ProviderObserver | undefined;
};

type ConversationalAi = ElevenLabsClient['conversationalAi'];

/** The SDK's own error for an answer that does not fit its model (core/schemas/…/ParseError.js, not exported). */
type SdkParseError = Error & { errors: { path: string[]; message: string }[] };
const isParseError = (e: unknown): e is SdkParseError =>
  e instanceof Error && e.name === 'ParseError' && Array.isArray((e as { errors?: unknown }).errors);

/**
 * Every request to ElevenLabs goes through `ask`: the official SDK makes it; what it answers is read with our
 * own schema (answers.ts). When the SDK refuses an answer for its shape, the raw body it refused is read instead and
 * the drift logged once per field and operation; only a field we need, missing or wrong, fails the request, named.
 * Each request is counted by operation and outcome, and each failure logged with what there is to know: the HTTP
 * status and body, or the network error when nothing answered.
 */
export function createRequests(settings: RequestSettings) {
  const { logger, observer } = settings;
  // The SDK takes about 2 s to load (hundreds of modules): it is loaded by the first request to ElevenLabs, so a
  // process that never talks to them (the simulator, every test, the CLI) does not pay for it at start.
  let sdk: Promise<typeof import('@elevenlabs/elevenlabs-js')> | null = null;
  const drifted = new Set<string>();

  /** A client whose fetch keeps the answer's body, so that an answer the SDK refuses can still be read. */
  async function clientKeepingAnswer(): Promise<{ ai: ConversationalAi; answer: () => Promise<unknown> }> {
    sdk ??= import('@elevenlabs/elevenlabs-js');
    const { ElevenLabsClient } = await sdk;
    let kept: Response | null = null;
    const client = new ElevenLabsClient({
      apiKey: settings.apiKey,
      baseUrl: settings.baseUrl,
      timeoutInSeconds: settings.timeoutMs / 1000,
      maxRetries: 0,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (response.ok) kept = response.clone();
        return response;
      },
    });
    return {
      ai: client.conversationalAi,
      answer: async () => (kept ? ((await kept.json().catch(() => undefined)) as unknown) : undefined),
    };
  }

  function noteDrift(operation: Operation, error: SdkParseError): void {
    observer?.drift(operation);
    for (const e of error.errors) {
      const problem = `${e.path.join('.')}: ${e.message}`;
      const key = `${operation} ${problem}`;
      if (drifted.has(key)) continue;
      drifted.add(key);
      logger.warn(
        { provider: 'elevenlabs', operation, problem },
        `ElevenLabs' answer to ${operation} does not fit the SDK's model (${problem}); read with our own, which takes only the fields we use`,
      );
    }
  }

  async function failed<T>(operation: Operation, what: string, error: unknown): Promise<ProviderResult<T>> {
    // Loaded with the SDK it inspects, which is here by now.
    const { failureOf } = await import('./errors.ts');
    const failure = failureOf(error, what, settings);
    observer?.request(operation, failure.outcome);
    logger.warn(
      { provider: 'elevenlabs', operation, outcome: failure.outcome, ...failure.facts },
      `ElevenLabs ${operation} failed: ${failure.error.detail}`,
    );
    return fail(failure.error);
  }

  return {
    /**
     * `run` makes one request through the SDK; `read` takes what we need of the answer (answers.ts). An answer we
     * cannot read is `unreadable`: by default a retryable `unavailable`; `unreadableMeans: 'timeout'` where the
     * request may have taken effect all the same (a placement), so the caller treats it as one it has no answer to.
     */
    async ask<T>(
      operation: Operation,
      what: string,
      read: (answer: unknown) => Read<T>,
      run: (ai: ConversationalAi) => Promise<unknown>,
      options: { unreadableMeans?: 'timeout' | 'unavailable' } = {},
    ): Promise<ProviderResult<T>> {
      let value: unknown;
      try {
        const client = await clientKeepingAnswer();
        try {
          value = await run(client.ai);
        } catch (error) {
          if (!isParseError(error)) throw error;
          noteDrift(operation, error);
          value = await client.answer();
        }
      } catch (error) {
        return failed(operation, what, error);
      }
      const answer = read(value);
      if (answer.ok) {
        observer?.request(operation, 'ok');
        return ok(answer.value);
      }
      observer?.request(operation, 'unreadable');
      const missing = answer.problems.join('; ');
      const error: ProviderError = {
        code: options.unreadableMeans ?? 'unavailable',
        retryable: true,
        detail: `ElevenLabs' answer to ${operation} (${what}) lacks what we need: ${missing}.`,
      };
      logger.error(
        { provider: 'elevenlabs', operation, outcome: 'unreadable', fields: answer.problems },
        error.detail,
      );
      return fail(error);
    },
  };
}

export type Requests = ReturnType<typeof createRequests>;
