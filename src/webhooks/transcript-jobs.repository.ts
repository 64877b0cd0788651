import { sql } from 'kysely';
import type { Database } from '../db/index.ts';
import { claimOldestDue } from '../db/index.ts';
import { activeSubscriptionsTo } from './outbox.ts';

export type TranscriptJob = { call_id: string; customer_id: string; attempts: number; deadline_at: Date };

export const claimDueJobs = (
  db: Database,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<TranscriptJob[]> =>
  claimOldestDue<TranscriptJob>(
    db,
    { table: 'transcript_jobs', key: 'call_id', state: 'status' },
    { now, limit, leaseMs, returning: sql`q.call_id, q.customer_id, q.attempts, q.deadline_at` },
  );

export async function hasActiveTranscriptSubscription(db: Database, customerId: string): Promise<boolean> {
  const { rows } = await sql`
    select 1 from webhook_subscriptions s
    where ${activeSubscriptionsTo(customerId, 'call.transcript.ready')}`.execute(db);
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
