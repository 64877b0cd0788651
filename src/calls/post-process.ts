import { redactsCallData } from '../customers/index.ts';
import type { CallRow, Database } from '../db/index.ts';
import { type ConversationDetails, providerForMode, type VoiceProvider } from '../provider/index.ts';
import { redactText } from '../redaction.ts';
import { billableSeconds, costUnits, formatUsd } from './billing.ts';
import type { CallReports } from './call-reports.ts';
import * as repo from './lifecycle.repository.ts';
import type { LifecycleDeps } from './lifecycle-deps.ts';

/** After this many failed reads of the conversation (about 1.5 hours of backoff), finish without it. */
export const MAX_PROCESSING_ATTEMPTS = 12;
const backoffSeconds = (attempt: number) => Math.min(600, 5 * 2 ** attempt);

type Fetched = { details: ConversationDetails | null; retry: string | null };

async function fetchDetails(provider: VoiceProvider, call: CallRow): Promise<Fetched> {
  if (!call.conversation_id || !call.answered_at) return { details: null, retry: null };
  const result = await provider.getConversation(call.conversation_id);
  if (!result.ok) return { details: null, retry: result.error.retryable ? result.error.detail : null };
  if (!result.value.details) return { details: null, retry: 'The conversation analysis is not ready yet.' };
  return { details: result.value.details, retry: null };
}

/**
 * Post-processing of every ended call that is due: duration, billing, summary and insights from
 * the provider, then — in one transaction — the call's final values and the report that the call finished
 * (`CallReports`: its listeners record `call.completed`, `call.insight.received`, the callback and the spend).
 * Returns how many calls were finished.
 */
export async function processDue(deps: LifecycleDeps, limit = 20): Promise<number> {
  const ids = await repo.dueForProcessing(deps.db, deps.clock.now(), limit);
  let finished = 0;
  for (const callId of ids) if (await processOne(deps, callId)) finished += 1;
  return finished;
}

async function processOne(deps: LifecycleDeps, callId: string): Promise<boolean> {
  const before = await repo.findCall(deps.db, callId);
  if (!before) return false;
  // Read upstream outside any transaction: no lock is held while the network is slow.
  const fetched = await fetchDetails(providerForMode(deps, before.livemode), before);
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const call = await repo.lockCall(tx, callId);
    const lifecycle = await repo.lockLifecycle(tx, callId);
    // Another worker finished it meanwhile: nothing to do, and no event twice.
    if (!call || lifecycle?.processing_state !== 'pending') return false;
    const attempts = lifecycle.processing_attempts + 1;
    if (fetched.retry && attempts < MAX_PROCESSING_ATTEMPTS) {
      deps.logger?.warn({ call_id: callId, attempts, reason: fetched.retry }, 'post-processing postponed');
      await repo.updateLifecycle(tx, callId, {
        processing_attempts: attempts,
        processing_due_at: new Date(now.getTime() + backoffSeconds(attempts) * 1000),
        processing_error: fetched.retry,
        updated_at: now,
      });
      return false;
    }
    await finish(tx, deps.reports, call, fetched.details, now);
    await repo.updateLifecycle(tx, callId, {
      processing_state: 'done',
      processing_attempts: attempts,
      processing_error: fetched.retry,
      processed_at: now,
      updated_at: now,
    });
    return true;
  });
}

async function finish(
  tx: Database,
  reports: CallReports,
  call: CallRow,
  details: ConversationDetails | null,
  now: Date,
): Promise<void> {
  const duration = details?.durationSeconds ?? call.duration_seconds ?? 0;
  const billable = billableSeconds(duration, call.answered_at !== null);
  // A provider that reports its charge (ElevenLabs' `cost_fiat`) sets the cost; else our per-minute rate. A
  // test-mode call costs nothing.
  const cost = call.livemode ? (details?.costUsd ?? formatUsd(costUnits(billable))) : formatUsd(0n);
  const summary = details?.summary ?? call.summary;
  const done = await repo.updateCall(tx, call.id, {
    duration_seconds: duration,
    billable_seconds: billable,
    cost_usd: cost,
    // The summary retells the conversation: masked like its transcript when the customer asked for it.
    summary:
      summary !== null && (await redactsCallData(tx, call.customer_id)) ? redactText(summary) : summary,
    has_transcript: details?.hasTranscript ?? false,
    recording_available: details?.recordingAvailable ?? false,
    updated_at: now,
  });
  const insights = details?.insights ?? [];
  await repo.insertInsights(tx, done, insights, now);
  await reports.finished(tx, done, { costUsd: cost, insights }, now);
}
