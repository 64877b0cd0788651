import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors/app-error.ts';
import type { ApplyOutcome } from '../lifecycle/apply-event.ts';
import type { LifecycleService } from '../lifecycle/lifecycle.service.ts';
import { eventsOf } from '../provider/elevenlabs/events.ts';
import { verifySignature } from '../provider/elevenlabs/signature.ts';
import { parseWebhook } from '../provider/elevenlabs/webhook.ts';
import type { ProviderEvent } from '../provider/interface.ts';
import type { RateLimiter } from '../rate-limit/interface.ts';

export const ELEVENLABS_WEBHOOK_PATH = '/provider/elevenlabs/webhook';
/** A post-call transcription carries the whole transcript: far more than an API request body. */
export const WEBHOOK_BODY_LIMIT_BYTES = 5 * 1024 * 1024;
/** Post-call webhooks accepted per source address and minute (ElevenLabs sends from a few addresses). */
export const WEBHOOKS_PER_MINUTE_PER_IP = 600;

export type UpstreamDeps = {
  assistantForAgent: (agentId: string) => Promise<string | null>;
  clock: Clock;
  limiter: RateLimiter;
  lifecycle: LifecycleService;
  webhookSecret: string;
};

/** Applies a conversation's events in order; a replayed or late one is ignored by the state machine. */
export async function applyEvents(
  lifecycle: LifecycleService,
  events: ProviderEvent[],
): Promise<ApplyOutcome[]> {
  const outcomes: ApplyOutcome[] = [];
  for (const event of events) outcomes.push(await lifecycle.applyProviderEvent(event));
  return outcomes;
}

/**
 * `POST /provider/elevenlabs/webhook`: ElevenLabs' post-call webhooks. Not the customer API (no key): limited per
 * source address, and nothing changes unless the `ElevenLabs-Signature` over the raw bytes is valid and fresh.
 */
export function registerElevenLabsWebhook(app: FastifyInstance, deps: UpstreamDeps): void {
  app.register(async (scope) => {
    // The signature covers the bytes as sent: keep them, parse after the check.
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );
    scope.post(ELEVENLABS_WEBHOOK_PATH, { bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, async (request, reply) => {
      const now = deps.clock.now();
      const hit = await deps.limiter.hit(
        [{ key: `provider-webhook:ip:${request.ip}`, limit: WEBHOOKS_PER_MINUTE_PER_IP }],
        now,
        request.id,
      );
      const [state] = hit.states;
      if (!hit.allowed && state) {
        throw new AppError('rate.exceeded_ip', 'Too many provider webhooks from this address.', {
          headers: { 'retry-after': String(state.retryAfterSeconds) },
        });
      }
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['elevenlabs-signature'];
      const check = verifySignature(
        typeof header === 'string' ? header : undefined,
        raw,
        deps.webhookSecret,
        now,
      );
      if (check !== 'valid') {
        throw new AppError('provider.signature_invalid', `The ElevenLabs-Signature header is ${check}.`);
      }
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new AppError('provider.payload_invalid', 'The webhook body is not JSON.');
      }
      const parsed = parseWebhook(body);
      if (parsed.kind === 'invalid') {
        throw new AppError(
          'provider.payload_invalid',
          'The webhook body is not a post-call webhook we can read.',
        );
      }
      let outcomes: ApplyOutcome[] = [];
      if (parsed.kind === 'conversation') {
        const assistantId = await deps.assistantForAgent(parsed.facts.agentId);
        outcomes = await applyEvents(deps.lifecycle, eventsOf(parsed.facts, assistantId));
      } else if (parsed.kind === 'initiation_failure') {
        outcomes = await applyEvents(deps.lifecycle, [parsed.event]);
      }
      return reply
        .code(200)
        .send({ received: true, applied: outcomes.filter((o) => o === 'applied').length });
    });
  });
}
