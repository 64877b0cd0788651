import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { LifecycleService } from '../calls/index.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { AppError } from '../errors/index.ts';
import type { AgentLink, ProviderObserver } from '../provider/index.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import { createElevenLabsProvider } from './adapter.ts';
import { assistantForAgent, findAgentLink, linkedAgents } from './agent-links.repository.ts';
import { createElevenLabsHealth } from './health.ts';
import { type LinkProblem, providerProblems } from './link-checks.ts';
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
export function createElevenLabs(deps: {
  db: Database;
  clock: Clock;
  settings: ElevenLabsSettings;
  logger: Logger;
  observer?: ProviderObserver | undefined;
}) {
  const { db, clock, settings, logger } = deps;
  const forAgent = (agentId: string) => assistantForAgent(db, agentId);
  const provider = createElevenLabsProvider({
    ...settings,
    logger,
    observer: deps.observer,
    assistantForAgent: forAgent,
  });
  const health = createElevenLabsHealth({ probe: provider.probe, clock, logger, baseUrl: settings.baseUrl });
  return {
    provider,
    /** Whether ElevenLabs answers our key, as the last periodic check found (`/readyz`, the banner). */
    health,
    /** What `assistants link` asks ElevenLabs before it keeps a link. */
    lookups: { agent: provider.agent, phoneNumber: provider.phoneNumber },
    /** The SDK times each request out itself (PROVIDER_TIMEOUT_MS); the guard is the backstop for a placement's two. */
    guardTimeoutMs: settings.timeoutMs * 2,
    /** The agent an assistant's `from` number places calls as, inside the placing transaction `tx`. */
    async agentFor(tx: Database, assistantId: string, from: string): Promise<AgentLink> {
      const link = await findAgentLink(tx, assistantId);
      const number = link?.phone_numbers[from];
      if (!link || !number) {
        // The fix is the operator's: it goes to the log and the docs; the API customer is told whom to ask.
        logger.warn(
          { assistant_id: assistantId, from },
          `outbound call refused: assistant ${assistantId} is not linked to an ElevenLabs agent for ${from}; link it with \`npm run cli -- assistants link ${assistantId} --agent-id <agent id> --phone-number-id ${from}=<phone number id>\` (docs/provider-elevenlabs.md)`,
        );
        throw new AppError(
          'assistant.not_linked',
          'This assistant is not yet connected to the voice provider, so it cannot place calls. Contact the operator of this service to connect it; nothing was placed or charged.',
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
    /**
     * `provider check`: the key (the health check, now), the webhook secret's form and every link, each with what
     * ElevenLabs says of its agent and numbers.
     */
    async checkSetup(): Promise<SetupReport> {
      const now = await health.check();
      const secret = settings.webhookSecret;
      const links = now.state === 'ok' ? await linkedAgents(db) : [];
      const checked = [];
      for (const l of links) {
        const numbers = Object.entries(l.phone_numbers).map(([e164, n]) => ({
          e164,
          phoneNumberId: n.id,
          telephony: n.telephony,
        }));
        checked.push({
          assistantId: l.assistant_id,
          agentId: l.agent_id,
          problems: await providerProblems(provider, { agentId: l.agent_id, numbers }),
        });
      }
      return {
        baseUrl: settings.baseUrl,
        // Null only while it answers: the check just made leaves no `unknown` state.
        key: health.warning(),
        webhookSecret: WEBHOOK_SECRET_FORM.test(secret)
          ? null
          : "ELEVENLABS_WEBHOOK_SECRET does not look like the HMAC secret ElevenLabs shows for a webhook (wsec_ followed by letters and digits, no spaces or quotes): copy it again from the webhook's settings.",
        links: checked,
      };
    },
    /** Placements that timed out and inbound conversations no webhook reported, every `intervalSeconds`. */
    startReconciliation(o: { lifecycle: LifecycleService; intervalSeconds: number }) {
      return startElevenLabsReconciliation({ ...o, db, clock, provider, logger, observer: deps.observer });
    },
  };
}

/** ElevenLabs' webhook HMAC secrets: `wsec_` and hex digits (the form shown in its webhook settings). */
const WEBHOOK_SECRET_FORM = /^wsec_[A-Za-z0-9_-]+$/;

/** What `provider check` found: each problem as a sentence, null where all is well. */
export type SetupReport = {
  baseUrl: string;
  key: string | null;
  webhookSecret: string | null;
  links: { assistantId: string; agentId: string; problems: LinkProblem[] }[];
};

export type ElevenLabs = ReturnType<typeof createElevenLabs>;
