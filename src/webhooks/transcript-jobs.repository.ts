import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { EventRow } from '../events/events.table.ts';

/** About two hours of retries after call.completed (spec 6.4). */
export const TRANSCRIPT_READY_WINDOW_MS = 2 * 3600 * 1000;

/**
 * In the call.completed transaction: a transcript job for an answered call, only when the customer has an
 * active call.transcript.ready subscription (no subscription, no transcript processing).
 */
export async function enqueueTranscriptJob(tx: Database, event: EventRow): Promise<void> {
  const data = event.data as { conversation_id?: unknown };
  if (event.type !== 'call.completed' || !event.call_id || typeof data.conversation_id !== 'string') return;
  await sql`
    insert into transcript_jobs (call_id, customer_id, status, attempts, next_attempt_at, deadline_at, created_at)
    select ${event.call_id}, ${event.customer_id}, 'pending', 0, ${event.occurred_at},
           ${new Date(event.occurred_at.getTime() + TRANSCRIPT_READY_WINDOW_MS)}, ${event.occurred_at}
    where exists (${activeSubscription(event.customer_id)})
    on conflict (call_id) do nothing`.execute(tx);
}

const activeSubscription = (customerId: string) => sql`
  select 1 from webhook_subscriptions s
  where s.customer_id = ${customerId} and s.deleted_at is null and s.is_active
    and 'call.transcript.ready' = any (s.events)`;

export type TranscriptJob = { call_id: string; customer_id: string; attempts: number; deadline_at: Date };

export async function claimDueJobs(
  db: Database,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<TranscriptJob[]> {
  const { rows } = await sql<TranscriptJob>`
    update transcript_jobs j
    set leased_until = ${new Date(now.getTime() + leaseMs)}, attempts = j.attempts + 1
    from (
      select call_id from transcript_jobs
      where status = 'pending' and next_attempt_at <= ${now}
        and (leased_until is null or leased_until <= ${now})
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    ) due
    where j.call_id = due.call_id
    returning j.call_id, j.customer_id, j.attempts, j.deadline_at`.execute(db);
  return rows;
}

export async function hasActiveTranscriptSubscription(db: Database, customerId: string): Promise<boolean> {
  const { rows } = await sql`${activeSubscription(customerId)}`.execute(db);
  return rows.length > 0;
}

export async function closeJob(
  db: Database,
  callId: string,
  status: 'done' | 'expired' | 'cancelled',
  lastResult: string,
): Promise<void> {
  await db
    .updateTable('transcript_jobs')
    .set({ status, leased_until: null, last_result: lastResult })
    .where('call_id', '=', callId)
    .execute();
}

export async function rescheduleJob(
  db: Database,
  callId: string,
  at: Date,
  lastResult: string,
): Promise<void> {
  await db
    .updateTable('transcript_jobs')
    .set({ next_attempt_at: at, leased_until: null, last_result: lastResult })
    .where('call_id', '=', callId)
    .execute();
}
