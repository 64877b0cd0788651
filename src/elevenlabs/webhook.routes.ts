import type { FastifyInstance } from 'fastify';
import type { ApplyOutcome, LifecycleService } from '../calls/index.ts';
import { applyProviderEvents } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors/index.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import { eventsOf } from './events.ts';
import { readSignatureHeader, type SignatureClaim, signatureMatches } from './signature.ts';
import { parseWebhook } from './webhook.ts';

export const ELEVENLABS_WEBHOOK_PATH = '/provider/elevenlabs/webhook';
/**
 * A post-call transcription carries the whole transcript: far more than an API request body. A two-hour call with a
 * turn every 5 s, each turn with every field the SDK's transcript model declares filled in, is 2.2 MiB
 * (docs/provider-elevenlabs.md); a larger one is refused (413) and its call still ends by polling (reconciliation).
 */
export const WEBHOOK_BODY_LIMIT_BYTES = 3 * 1024 * 1024;
/** Post-call webhooks accepted per source address and minute (ElevenLabs sends from a few addresses). */
export const WEBHOOKS_PER_MINUTE_PER_IP = 600;

export type ElevenLabsWebhookDeps = {
  assistantForAgent: (agentId: string) => Promise<string | null>;
  clock: Clock;
  limiter: RateLimiter;
  lifecycle: LifecycleService;
  webhookSecret: string;
};

/**
 * `POST /provider/elevenlabs/webhook`: ElevenLabs' post-call webhooks. Not the customer API (no key): limited per
 * source address, and nothing changes unless the `ElevenLabs-Signature` over the raw bytes is valid and fresh.
 */
export function registerElevenLabsWebhook(app: FastifyInstance, deps: ElevenLabsWebhookDeps): void {
  app.register(async (scope) => {
    scope.decorateRequest('signatureClaim', null);
    // The signature covers the bytes as sent: keep them, parse after the check.
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );
    // Before a byte of the body is read: the address's window, then the header's presence, shape and freshness.
    // A refusal closes the connection, so the body it announced is never read either.
    scope.addHook('onRequest', async (request, reply) => {
      const now = deps.clock.now();
      const hit = await deps.limiter.hit(
        [{ key: `provider-webhook:ip:${request.ip}`, limit: WEBHOOKS_PER_MINUTE_PER_IP }],
        now,
        request.id,
      );
      const [state] = hit.states;
      if (!hit.allowed && state) {
        reply.header('connection', 'close');
        throw new AppError('rate.exceeded_ip', 'Too many provider webhooks from this address.', {
          headers: { 'retry-after': String(state.retryAfterSeconds) },
        });
      }
      const header = request.headers['elevenlabs-signature'];
      const claim = readSignatureHeader(typeof header === 'string' ? header : undefined, now);
      if (typeof claim === 'string') {
        reply.header('connection', 'close');
        throw new AppError('provider.signature_invalid', `The ElevenLabs-Signature header is ${claim}.`);
      }
      request.signatureClaim = claim;
    });
    scope.post(ELEVENLABS_WEBHOOK_PATH, { bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const claim = request.signatureClaim;
      if (!claim || !signatureMatches(claim, raw, deps.webhookSecret)) {
        throw new AppError('provider.signature_invalid', 'The ElevenLabs-Signature does not match the body.');
      }
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new AppError('provider.payload_invalid', 'The webhook body is not JSON.');
      }
      const parsed = parseWebhook(body);
      if (parsed.kind === 'invalid') {
        const lacks = parsed.problems.join('; ');
        request.log.warn(
          { provider: 'elevenlabs', fields: parsed.problems },
          `ElevenLabs webhook refused: it lacks what we need: ${lacks}`,
        );
        throw new AppError(
          'provider.payload_invalid',
          `The webhook body is not a post-call webhook we can read: ${lacks}.`,
        );
      }
      let outcomes: ApplyOutcome[] = [];
      if (parsed.kind === 'conversation') {
        const assistantId = await deps.assistantForAgent(parsed.facts.agentId);
        outcomes = await applyProviderEvents(deps.lifecycle, eventsOf(parsed.facts, assistantId));
      } else if (parsed.kind === 'initiation_failure') {
        outcomes = await applyProviderEvents(deps.lifecycle, [parsed.event]);
      }
      return reply
        .code(200)
        .send({ received: true, applied: outcomes.filter((o) => o === 'applied').length });
    });
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The provider webhook's signature header, read before its body (the digest is checked over the body). */
    signatureClaim: SignatureClaim | null;
  }
}
