import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors/index.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import type { SmsInbox } from '../sms/index.ts';
import { readInboundCallback, readStatusCallback } from './callbacks.ts';
import { loadTwilio } from './client.ts';
import { formOf, parseForm } from './form.ts';
import { SMS_INBOUND_PATH, SMS_STATUS_PATH } from './webhook-paths.ts';

/** A callback is a form of a few dozen short fields; an inbound text is at most 1,600 characters. */
export const WEBHOOK_BODY_LIMIT_BYTES = 64 * 1024;
/** Callbacks accepted per source address and minute (Twilio posts from a pool of addresses). */
export const WEBHOOKS_PER_MINUTE_PER_IP = 600;
/** No reply to an inbound text: an empty TwiML response. */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

const FORM = 'application/x-www-form-urlencoded';

export type TwilioWebhookDeps = {
  authToken: string;
  /** The address Twilio calls us at (PUBLIC_BASE_URL): what it signed, whatever a proxy made of it on the way. */
  publicBaseUrl: string;
  clock: Clock;
  limiter: RateLimiter;
  inbox: SmsInbox;
};

/**
 * `POST /provider/twilio/sms-status` and `POST /provider/twilio/sms-inbound`: Twilio's callbacks. Not the customer
 * API (no key): limited per source address, and nothing changes unless `X-Twilio-Signature` is valid for the
 * public URL Twilio called and the form it posted.
 */
export function registerTwilioWebhooks(app: FastifyInstance, deps: TwilioWebhookDeps): void {
  app.register(async (scope) => {
    // Twilio posts forms only: no other parser (JSON's, or @fastify/formbody's with its arrays) reads a body here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      FORM,
      { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, parseForm(String(body))),
    );
    // Before a byte of the body is read: the address's window, then the header's presence. A refusal closes the
    // connection, so the body it announced is never read either.
    scope.addHook('onRequest', async (request, reply) => {
      const hit = await deps.limiter.hit(
        [{ key: `provider-webhook:twilio:ip:${request.ip}`, limit: WEBHOOKS_PER_MINUTE_PER_IP }],
        deps.clock.now(),
        request.id,
      );
      const [state] = hit.states;
      if (!hit.allowed && state) {
        reply.header('connection', 'close');
        throw new AppError('rate.exceeded_ip', 'Too many provider webhooks from this address.', {
          headers: { 'retry-after': String(state.retryAfterSeconds) },
        });
      }
      const signature = request.headers['x-twilio-signature'];
      if (typeof signature !== 'string' || signature.length === 0) {
        reply.header('connection', 'close');
        throw new AppError('provider.signature_invalid', 'The X-Twilio-Signature header is missing.');
      }
    });

    /** The form, once its signature is Twilio's for the public URL it called (the path and query as received). */
    async function signedForm(request: FastifyRequest): Promise<Record<string, string>> {
      const form = formOf(request.body);
      const url = `${deps.publicBaseUrl}${request.url}`;
      const signature = String(request.headers['x-twilio-signature']);
      const { validateRequest } = await loadTwilio();
      let valid = false;
      // It parses the URL when the first comparison fails: one it cannot parse is no URL Twilio signed.
      try {
        valid = validateRequest(deps.authToken, signature, url, form);
      } catch {
        valid = false;
      }
      if (!valid) {
        request.log.warn(
          { provider: 'twilio', url },
          `Twilio callback refused: its signature is not one for ${url} (is PUBLIC_BASE_URL the address configured at Twilio?)`,
        );
        throw new AppError(
          'provider.signature_invalid',
          'The X-Twilio-Signature does not match the request.',
        );
      }
      return form;
    }

    function invalid(request: FastifyRequest, problems: string[]): AppError {
      const lacks = problems.join('; ');
      request.log.warn({ provider: 'twilio', fields: problems }, `Twilio callback refused: ${lacks}`);
      return new AppError('provider.payload_invalid', `The callback is not one we can read: ${lacks}.`);
    }

    scope.post(SMS_STATUS_PATH, { bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, async (request, reply) => {
      const callback = readStatusCallback(
        await signedForm(request),
        deps.clock.now(),
        (request.query as Record<string, unknown>).message_id,
      );
      if (callback.kind === 'invalid') throw invalid(request, callback.problems);
      if (callback.kind === 'ignored') return reply.code(200).send();
      const outcome = await deps.inbox.statusReported(callback.report);
      if (outcome === 'unknown') {
        request.log.info(
          { provider: 'twilio', provider_message_id: callback.report.providerMessageId },
          'Twilio status callback for a message we do not know (yet)',
        );
      }
      return reply.code(204).send();
    });

    scope.post(SMS_INBOUND_PATH, { bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, async (request, reply) => {
      const inbound = readInboundCallback(await signedForm(request), deps.clock.now());
      if (!inbound.ok) throw invalid(request, inbound.problems);
      await deps.inbox.received(inbound.message);
      return reply.code(200).type('text/xml').send(EMPTY_TWIML);
    });
  });
}
