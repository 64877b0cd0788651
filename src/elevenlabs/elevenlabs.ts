import type { FastifyInstance } from 'fastify';
import type { LifecycleService } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { AppError } from '../errors/index.ts';
import type { LoopLogger } from '../loop.ts';
import type { AgentLink } from '../provider/index.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import { createElevenLabsProvider } from './adapter.ts';
import { assistantForAgent, findAgentLink } from './agent-links.repository.ts';
import { startElevenLabsReconciliation } from './reconcile.ts';
import { registerElevenLabsWebhook } from './webhook.routes.ts';

/** PROVIDER=elevenlabs and its settings (config.ts checks that they are all there). */
export type ElevenLabsSettings = {
  apiKey: string;
  webhookSecret: string;
  baseUrl: string;
  timeoutMs: number;
};

/**
 * ElevenLabs as the rest of the service sees it: a provider behind the common interface, the agent an outbound
 * call is placed as, its webhook route and its reconciliation. Nothing else names ElevenLabs.
 */
export function createElevenLabs(deps: { db: Database; clock: Clock; settings: ElevenLabsSettings }) {
  const { db, clock, settings } = deps;
  const forAgent = (agentId: string) => assistantForAgent(db, agentId);
  const provider = createElevenLabsProvider({ ...settings, assistantForAgent: forAgent });
  return {
    provider,
    /** The SDK times each request out itself (PROVIDER_TIMEOUT_MS); the guard is the backstop for a placement's two. */
    guardTimeoutMs: settings.timeoutMs * 2,
    /** The agent an assistant's `from` number places calls as, inside the placing transaction `tx`. */
    async agentFor(tx: Database, assistantId: string, from: string): Promise<AgentLink> {
      const link = await findAgentLink(tx, assistantId);
      const number = link?.phone_numbers[from];
      if (!link || !number) {
        throw new AppError(
          'assistant.not_linked',
          `The assistant is not linked to an ElevenLabs agent for ${from}; link it: assistants link ${assistantId} --agent-id … --phone-number-id ${from}=phnum_….`,
        );
      }
      return { agentId: link.agent_id, phoneNumberId: number.id, telephony: number.telephony };
    },
    /** `POST /provider/elevenlabs/webhook`, outside the customer API. */
    registerWebhook(app: FastifyInstance, o: { limiter: RateLimiter; lifecycle: LifecycleService }): void {
      registerElevenLabsWebhook(app, {
        ...o,
        clock,
        assistantForAgent: forAgent,
        webhookSecret: settings.webhookSecret,
      });
    },
    /** Placements that timed out and inbound conversations no webhook reported, every `intervalSeconds`. */
    startReconciliation(o: { lifecycle: LifecycleService; logger: LoopLogger; intervalSeconds: number }) {
      return startElevenLabsReconciliation({ ...o, db, clock, provider });
    },
  };
}

export type ElevenLabs = ReturnType<typeof createElevenLabs>;
