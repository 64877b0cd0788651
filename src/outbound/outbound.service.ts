import { findAssistant } from '../assistants/index.ts';
import {
  createCall,
  ESTIMATE_UNITS,
  formatUsd,
  lockPlacedCall,
  MAX_CALL_SECONDS,
  recordProviderCall,
  removeUnplacedCall,
} from '../calls/index.ts';
import { type Clock, utcDay } from '../clock.ts';
import { customerMaxDailyCap } from '../customers/index.ts';
import type { Database } from '../db/index.ts';
import { checkTargetUrl, invalidTargetInput, type TargetPolicy } from '../delivery/index.ts';
import { AppError } from '../errors/index.ts';
import { newUuid } from '../ids.ts';
import type { Principal } from '../keys/index.ts';
import { lockKeyForSpend } from '../keys/index.ts';
import type { OutboundLimits } from '../outbound-limits.ts';
import { type AgentLink, providerForMode, type VoiceProvider } from '../provider/index.ts';
import { recordCallback } from './callbacks.ts';
import { assistantCheck, numberChecks, spendCheck, throwFirstFailure } from './checks.ts';
import { dryRun } from './dry-run.ts';
import * as idem from './idempotency.repository.ts';
import { claimIdempotencyKey, requestHash } from './idempotency.ts';
import type { OutboundCallBody } from './outbound.schema.ts';
import { type OutboundCallView, type PlaceResult, providerFailure, rowToView } from './outbound.views.ts';
import { outboundCallRow } from './outbound-call-row.ts';
import * as spend from './spend.repository.ts';

export function createOutboundService(deps: {
  db: Database;
  clock: Clock;
  provider: VoiceProvider;
  /** Test-mode placements' provider (the simulator) when PROVIDER is another; see providerForMode. */
  testProvider?: VoiceProvider | undefined;
  /** The operator's webhook target policy, which callback_url follows too. */
  webhooks: TargetPolicy;
  /** The limits of customers without their own: the largest cap is read afresh under the key's lock. */
  outboundDefaults: OutboundLimits;
  /**
   * The provider places calls as an upstream agent (ElevenLabs): the agent of the assistant's `from` number, read
   * in the placing transaction; it refuses (`assistant.not_linked`) an assistant that is not linked.
   */
  agentFor?: ((tx: Database, assistantId: string, from: string) => Promise<AgentLink>) | undefined;
  /**
   * A placement the provider did not confirm in time is kept, queued with no provider handle, instead of removed:
   * the provider may have placed it, and reconciliation finds out (ElevenLabs: by our call id). Never re-placed.
   */
  keepUnconfirmed?: boolean;
}) {
  const { db, clock } = deps;

  /** The same target check as webhook subscriptions, before anything is claimed or reserved. */
  function checkCallbackUrl(body: OutboundCallBody): void {
    if (body.callback_url === undefined) return;
    const issues = checkTargetUrl(body.callback_url, deps.webhooks, ['body', 'callback_url']);
    if (issues.length > 0) throw invalidTargetInput(issues);
  }

  /** Claim the key, check everything, reserve the estimate and record the queued call: one transaction. */
  async function reserve(p: Principal, body: OutboundCallBody, idemKey: string | null) {
    const now = clock.now();
    return db.transaction().execute(async (tx) => {
      let callId = newUuid();
      if (idemKey) {
        const claim = await claimIdempotencyKey(tx, {
          customerId: p.customerId,
          key: idemKey,
          hash: requestHash(body),
          resourceId: callId,
          now,
        });
        if (claim.kind === 'replay') return claim;
        callId = claim.resourceId;
      }
      const assistant = await findAssistant(tx, body.assistant_id);
      throwFirstFailure([
        assistantCheck(assistant, p.accountId),
        ...numberChecks(body.to_number, p.allowedCountries, p.outboundLimits).checks,
      ]);
      if (!assistant) throw new AppError('resource.not_found', 'Assistant not found.');
      const from = assistant.phone_numbers[0] ?? '';
      // A test-mode call goes to the simulator, which needs no agent, and costs nothing: no spend to check.
      const live = p.mode === 'live';
      const agent = live && deps.agentFor ? await deps.agentFor(tx, assistant.id, from) : null;
      // The key's row lock makes concurrent placements on one key take their reservations in turn.
      const key = await lockKeyForSpend(tx, p.keyId);
      if (!key) throw new AppError('auth.revoked', 'The API key no longer exists.');
      if (live && !(await spend.findReservation(tx, callId))) {
        const used = await spend.spentOnDay(tx, p.keyId, utcDay(now));
        // Read under the key's lock, so a cap the operator just lowered holds for this reservation.
        const maxDailyCapUsd =
          (await customerMaxDailyCap(tx, key.customer_id)) ?? deps.outboundDefaults.maxDailyCapUsd;
        throwFirstFailure([spendCheck(key.daily_spend_cap_usd, { maxDailyCapUsd }, used, now).check]);
      }
      await createCall(tx, outboundCallRow(p, body, assistant, callId, now), { providerCallId: null, now });
      if (live)
        await spend.insertReservation(tx, {
          call_id: callId,
          api_key_id: p.keyId,
          customer_id: p.customerId,
          day: utcDay(now),
          amount_usd: formatUsd(ESTIMATE_UNITS),
          now,
        });
      return { kind: 'placing' as const, callId, language: assistant.language, from, agent };
    });
  }

  return {
    /** POST /outbound-calls/dry-run: every check, nothing reserved, nobody called. */
    async dryRun(p: Principal, body: OutboundCallBody) {
      checkCallbackUrl(body);
      return dryRun(deps, p, body);
    },

    /** POST /outbound-calls: at most one call per Idempotency-Key, never past the key's checks. */
    async place(p: Principal, body: OutboundCallBody, idemKey: string | null): Promise<PlaceResult> {
      checkCallbackUrl(body);
      const reserved = await reserve(p, body, idemKey);
      if (reserved.kind === 'replay') {
        // A body stored before test mode existed lacks `livemode`: every such call was live.
        const stored = reserved.body as Omit<OutboundCallView, 'livemode'> & { livemode?: boolean };
        const body: OutboundCallView = { ...stored, livemode: stored.livemode ?? true };
        return { status: reserved.status, body, replayed: true };
      }
      const { callId } = reserved;
      const live = p.mode === 'live';
      const placed = await providerForMode(deps, live).placeCall({
        callId,
        assistantId: body.assistant_id,
        language: reserved.language,
        from: reserved.from,
        to: body.to_number,
        variables: body.variables ?? {},
        maxDurationSeconds: MAX_CALL_SECONDS,
        agent: reserved.agent,
        ...(live ? {} : { testMode: true }),
      });
      const now = clock.now();
      const key = idemKey ? { customerId: p.customerId, key: idemKey } : null;
      const view = await db.transaction().execute(async (tx) => {
        const placedCall = await lockPlacedCall(tx, callId);
        const call = placedCall?.call;
        // Confirmed means the provider has the call: it said so to us or to a concurrent retry,
        // or its events already moved the call on, whatever it answered this request.
        const confirmed = !!call && (call.status !== 'queued' || !!placedCall?.providerCallId);
        const unconfirmed =
          !placed.ok && placed.error.code === 'timeout' && live && deps.keepUnconfirmed === true;
        if (!call || (!placed.ok && !confirmed && !unconfirmed)) {
          if (call) {
            await removeUnplacedCall(tx, callId);
            await spend.removeReservation(tx, callId);
          }
          if (key) await idem.markFailed(tx, key, now);
          return null;
        }
        if (placed.ok) {
          await recordProviderCall(tx, callId, placed.value, now);
        }
        if (!confirmed) await recordCallback(tx, call, 'call.queued', now);
        const body = rowToView(call);
        if (key) await idem.complete(tx, key, 201, body, now);
        return body;
      });
      if (view) return { status: 201, body: view, replayed: false };
      throw providerFailure(placed.ok ? null : placed.error, key !== null);
    },
  };
}

export type OutboundService = ReturnType<typeof createOutboundService>;
