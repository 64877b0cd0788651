import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { newUuid } from '../ids.ts';
import type { Principal } from '../keys/authenticate.ts';
import { ESTIMATE_UNITS, formatUsd, MAX_CALL_SECONDS } from '../lifecycle/billing.ts';
import * as lifecycleRepo from '../lifecycle/lifecycle.repository.ts';
import type { VoiceProvider } from '../provider/interface.ts';
import { recordCallback } from './callbacks.ts';
import { assistantCheck, numberChecks, spendCheck, throwFirstFailure, utcDay } from './checks.ts';
import { dryRun } from './dry-run.ts';
import * as idem from './idempotency.repository.ts';
import { claimIdempotencyKey, requestHash } from './idempotency.ts';
import * as repo from './outbound.repository.ts';
import type { OutboundCallBody } from './outbound.schema.ts';
import {
  newCallRow,
  type OutboundCallView,
  type PlaceResult,
  providerFailure,
  rowToView,
} from './outbound.views.ts';
import * as spend from './spend.repository.ts';

export function createOutboundService(deps: { db: Database; clock: Clock; provider: VoiceProvider }) {
  const { db, clock, provider } = deps;

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
          callId,
          now,
        });
        if (claim.kind === 'replay') return claim;
        callId = claim.callId;
      }
      const assistant = await lifecycleRepo.findAssistant(tx, body.assistant_id);
      throwFirstFailure([
        assistantCheck(assistant, p.customerId),
        ...numberChecks(body.to_number, p.allowedCountries).checks,
      ]);
      if (!assistant) throw new AppError('resource.not_found', 'Assistant not found.');
      // The key's row lock makes concurrent placements on one key take their reservations in turn.
      const key = await spend.lockKey(tx, p.keyId);
      if (!key) throw new AppError('auth.revoked', 'The API key no longer exists.');
      if (!(await spend.findReservation(tx, callId))) {
        const used = await spend.spentOnDay(tx, p.keyId, utcDay(now));
        throwFirstFailure([spendCheck(key.daily_spend_cap_usd, used, now).check]);
      }
      await repo.insertOutboundCall(tx, newCallRow(p, body, assistant, callId, now));
      await lifecycleRepo.insertLifecycle(tx, {
        call_id: callId,
        customer_id: p.customerId,
        provider_call_id: null,
        now,
      });
      await spend.insertReservation(tx, {
        call_id: callId,
        api_key_id: p.keyId,
        customer_id: p.customerId,
        day: utcDay(now),
        amount_usd: formatUsd(ESTIMATE_UNITS),
        now,
      });
      const from = assistant.phone_numbers[0] ?? '';
      return { kind: 'placing' as const, callId, language: assistant.language, from };
    });
  }

  return {
    /** POST /outbound-calls?dry_run=true: every check, nothing reserved, nobody called. */
    dryRun: (p: Principal, body: OutboundCallBody) => dryRun(deps, p, body),

    /** POST /outbound-calls: at most one call per Idempotency-Key, never past the key's checks. */
    async place(p: Principal, body: OutboundCallBody, idemKey: string | null): Promise<PlaceResult> {
      const reserved = await reserve(p, body, idemKey);
      if (reserved.kind === 'replay') {
        return { status: reserved.status, body: reserved.body as OutboundCallView, replayed: true };
      }
      const { callId } = reserved;
      const placed = await provider.placeCall({
        callId,
        assistantId: body.assistant_id,
        language: reserved.language,
        from: reserved.from,
        to: body.to_number,
        variables: body.variables ?? {},
        maxDurationSeconds: MAX_CALL_SECONDS,
      });
      const now = clock.now();
      const key = idemKey ? { customerId: p.customerId, key: idemKey } : null;
      const view = await db.transaction().execute(async (tx) => {
        const call = await lifecycleRepo.lockCall(tx, callId);
        const lifecycle = call ? await lifecycleRepo.lockLifecycle(tx, callId) : undefined;
        // Confirmed means the provider has the call: it said so to us or to a concurrent retry,
        // or its events already moved the call on, whatever it answered this request.
        const confirmed = !!call && (call.status !== 'queued' || !!lifecycle?.provider_call_id);
        if (!call || (!placed.ok && !confirmed)) {
          if (call) await repo.deleteCall(tx, callId);
          if (key) await idem.markFailed(tx, key, now);
          return null;
        }
        if (placed.ok) {
          await lifecycleRepo.updateLifecycle(tx, callId, {
            provider_call_id: placed.value.providerCallId,
            updated_at: now,
          });
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
