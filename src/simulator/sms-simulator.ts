import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/index.ts';
import type { SmsDeliveryStatus, SmsProvider, SmsResult, SmsStatusReport } from '../sms/index.ts';

/** One status the simulator will report, at `at` (ISO). */
type PlannedStatus = { at: string; status: SmsDeliveryStatus; error_code: string | null };

/** What the carrier error codes the simulator plays mean (Twilio's numbering and wording). */
const CARRIER_ERRORS: Record<string, string> = {
  '30003': 'Unreachable destination handset: the phone is off or out of coverage.',
  '30008': 'Unknown error: the carrier did not say why the message was not sent.',
};

/**
 * Test numbers for text messages (docs/test-mode.md), in the block the call test numbers use (+1NXX55501xx): what
 * the last two digits ask for. Every other number is delivered. The simulator plays them in live mode too.
 */
export const SMS_TEST_NUMBERS: Record<
  string,
  | { outcome: 'failed' | 'undelivered'; errorCode: string }
  | { refused: 'opted_out' | 'unreachable' | 'busy' | 'unavailable' }
> = {
  '80': { outcome: 'failed', errorCode: '30008' },
  '81': { outcome: 'undelivered', errorCode: '30003' },
  '82': { refused: 'opted_out' },
  '83': { refused: 'unreachable' },
  '90': { refused: 'busy' },
  '98': { refused: 'unavailable' },
};
const TEST_NUMBER_RE = /^\+1[2-9]\d{2}55501(\d{2})$/;
const testNumber = (to: string) => SMS_TEST_NUMBERS[TEST_NUMBER_RE.exec(to)?.[1] ?? ''];

/** How long the simulated carrier takes: sent after 1 s, its final status 3 s later. */
const SENT_AFTER_MS = 1_000;
const FINAL_AFTER_MS = 4_000;
const BATCH = 100;
/** A message has at most this many planned statuses (sent, then its final one). */
const MAX_STEPS = 2;

function refusal<T>(kind: 'opted_out' | 'unreachable' | 'busy' | 'unavailable'): SmsResult<T> {
  if (kind === 'busy')
    return {
      ok: false,
      error: {
        code: 'busy',
        retryable: true,
        retryAfterSeconds: 1,
        detail: 'Test number: the SMS provider is rate-limiting.',
      },
    };
  if (kind === 'unavailable')
    return {
      ok: false,
      error: {
        code: 'unavailable',
        retryable: true,
        detail: 'Test number: the SMS provider is unavailable.',
      },
    };
  return {
    ok: false,
    error: {
      code: 'refused',
      reason: kind,
      retryable: false,
      providerCode: kind === 'opted_out' ? '21610' : '21614',
      detail:
        kind === 'opted_out'
          ? 'The recipient replied STOP to this number.'
          : 'The number is not a mobile number and cannot receive text messages.',
    },
  };
}

/**
 * The built-in SMS carrier. Its messages live in the database (`simulator_messages`), as an external carrier's
 * would outlive us; their statuses are reported in `runDue(now)` (the server's 1-second tick, tests' ManualClock).
 * A status advanced but not reported (the process died between) is what a lost callback is: reconciliation asks
 * `status()`, which answers the last status reached.
 */
export function createSmsSimulator(options: { db: Database; clock: Clock; account?: string | undefined }) {
  const { db, clock, account = 'default' } = options;

  const reportOf = (providerMessageId: string, step: PlannedStatus): SmsStatusReport => ({
    providerMessageId,
    status: step.status,
    errorCode: step.error_code,
    errorMessage: step.error_code ? (CARRIER_ERRORS[step.error_code] ?? null) : null,
    at: new Date(step.at),
  });

  const provider: SmsProvider = {
    name: 'simulator',
    async send(request) {
      const planned = testNumber(request.to);
      if (planned && 'refused' in planned) return refusal(planned.refused);
      const now = clock.now().getTime();
      const final = planned ?? { outcome: 'delivered' as const, errorCode: null };
      const steps: PlannedStatus[] = [
        ...(final.outcome === 'failed'
          ? []
          : [{ at: new Date(now + SENT_AFTER_MS).toISOString(), status: 'sent' as const, error_code: null }]),
        {
          at: new Date(now + FINAL_AFTER_MS).toISOString(),
          status: final.outcome,
          error_code: final.errorCode,
        },
      ];
      const sid = `SM${randomBytes(16).toString('hex')}`;
      // The same message id twice answers the first: a resumed send can never text anyone twice.
      const row = await db
        .insertInto('simulator_messages')
        .values({
          provider_message_id: sid,
          account,
          message_id: request.messageId,
          to_number: request.to,
          steps: JSON.stringify(steps),
          next_at: new Date(steps[0]?.at ?? now),
          created_at: new Date(now),
        })
        .onConflict((oc) => oc.columns(['account', 'message_id']).doUpdateSet({ account }))
        .returning('provider_message_id')
        .executeTakeFirstOrThrow();
      return { ok: true, value: { providerMessageId: row.provider_message_id, status: 'queued' } };
    },

    async status(providerMessageId) {
      const row = await db
        .selectFrom('simulator_messages')
        .select(['steps', 'next_step', 'created_at'])
        .where('account', '=', account)
        .where('provider_message_id', '=', providerMessageId)
        .executeTakeFirst();
      if (!row)
        return {
          ok: false,
          error: {
            code: 'not_found',
            retryable: false,
            detail: `The simulator has no message ${providerMessageId}.`,
          },
        };
      const steps = row.steps as PlannedStatus[];
      const last = steps[row.next_step - 1];
      return {
        ok: true,
        value: last
          ? reportOf(providerMessageId, last)
          : { providerMessageId, status: 'queued', errorCode: null, errorMessage: null, at: row.created_at },
      };
    },
  };

  async function reportDue(now: Date, report: (r: SmsStatusReport) => Promise<unknown>): Promise<number> {
    const { rows } = await sql<{ provider_message_id: string; steps: PlannedStatus[]; step: number }>`
        update simulator_messages m
        set next_step = m.next_step + 1,
            next_at = ((m.steps -> (m.next_step + 1)) ->> 'at')::timestamptz
        from (
          select provider_message_id from simulator_messages
          where account = ${account} and next_at is not null and next_at <= ${now}
          order by next_at limit ${BATCH}
          for update skip locked
        ) due
        where m.provider_message_id = due.provider_message_id
        returning m.provider_message_id, m.steps, m.next_step - 1 as step`.execute(db);
    for (const r of rows) {
      const step = r.steps[r.step];
      if (step) await report(reportOf(r.provider_message_id, step));
    }
    return rows.length;
  }

  return {
    provider,
    /**
     * Advances every message with a status due by `now` and reports it; returns how many were reported. The step is
     * taken before it is reported (one statement claims it), so two instances never report one twice.
     */
    async runDue(now: Date, report: (r: SmsStatusReport) => Promise<unknown>): Promise<number> {
      let reported = 0;
      // A clock moved past several steps at once (tests, a stopped server) takes them in order, one pass per step.
      for (let pass = 0; pass < MAX_STEPS; pass++) {
        const n = await reportDue(now, report);
        if (n === 0) break;
        reported += n;
      }
      return reported;
    },
  };
}

export type SmsSimulator = ReturnType<typeof createSmsSimulator>;
