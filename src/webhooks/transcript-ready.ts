import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import { type TranscriptsService, transcriptReadyData } from '../transcripts/index.ts';
import { recordEvent } from './events.repository.ts';
import * as jobs from './transcript-jobs.repository.ts';

/** Exponential backoff between checks: 5 s, 10 s, 20 s … capped at 15 min, until the job's deadline. */
export function transcriptRetryDelayMs(attempts: number): number {
  return Math.min(900_000, 5_000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Produces call.transcript.ready: fetches each due call's transcript (stored and cached by the transcripts
 * service), and records the event in the same transaction that closes the job, so it fires exactly once.
 */
export function createTranscriptReadyProcessor(deps: {
  db: Database;
  clock: Clock;
  transcripts: Pick<TranscriptsService, 'fetchAndStore'>;
  logger: Logger;
}) {
  const { db, clock } = deps;

  async function process(job: jobs.TranscriptJob): Promise<void> {
    if (!(await jobs.hasActiveTranscriptSubscription(db, job.customer_id))) {
      await jobs.closeJob(db, job.call_id, 'cancelled', 'no active call.transcript.ready subscription');
      return;
    }
    const result = await deps.transcripts.fetchAndStore(job.customer_id, job.call_id);
    const now = clock.now();
    if (result.state === 'stored') {
      await db.transaction().execute(async (tx) => {
        await recordEvent(tx, {
          customerId: job.customer_id,
          type: 'call.transcript.ready',
          callId: job.call_id,
          data: transcriptReadyData(result.transcript),
          occurredAt: now,
        });
        await jobs.closeJob(tx, job.call_id, 'done', 'stored');
      });
      return;
    }
    if (result.state === 'absent') {
      await jobs.closeJob(db, job.call_id, 'done', `no transcript: ${result.reason}`);
      return;
    }
    const next = new Date(now.getTime() + transcriptRetryDelayMs(job.attempts));
    if (next > job.deadline_at) {
      deps.logger.warn(
        { call_id: job.call_id, attempts: job.attempts },
        'transcript not ready within its window',
      );
      await jobs.closeJob(db, job.call_id, 'expired', result.state);
      return;
    }
    await jobs.rescheduleJob(db, job.call_id, next, result.state);
  }

  return {
    /** Processes every job due now; returns how many it looked at. */
    async runOnce(limit = 20): Promise<number> {
      const due = await jobs.claimDueJobs(db, clock.now(), limit, 60_000);
      for (const job of due) {
        await process(job).catch((err: unknown) =>
          deps.logger.error({ err, call_id: job.call_id }, 'transcript job failed; retried after its lease'),
        );
      }
      return due.length;
    },
  };
}

export type TranscriptReadyProcessor = ReturnType<typeof createTranscriptReadyProcessor>;
