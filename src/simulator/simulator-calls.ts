import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database, SimulatorCallRow } from '../db/index.ts';
import type { Conversation, ProviderEvent, ProviderResult } from '../provider/index.ts';
import { fail, ok, providerNotFound } from '../provider/index.ts';
import type { Step } from './simulator-plan.ts';
import { archivedInput, buildScript, type Script, type ScriptInput } from './simulator-script.ts';

export type Inbound = {
  assistantId: string;
  from: string;
  to: string;
  callerName: string | null;
  /** A test-mode inbound call: the customer's test twin, which files it. */
  testCustomerId?: string;
};

export type SimCall = {
  providerCallId: string;
  callId: string | null;
  conversationId: string;
  input: ScriptInput;
  script: Script;
  inbound: Inbound | null;
  /** Every planned step, in order, at its instant. */
  timeline: { at: Date; step: Step }[];
  /** Index of the first step not yet delivered. */
  nextStep: number;
};

export type NewSimCall = Omit<SimCall, 'timeline' | 'nextStep'>;

type StoredStep = { at: string; step: Step };

/** Ended calls stay upstream this long (a restart or a reconcile may still ask), and so does placement dedupe. */
export const RETENTION_MS = 48 * 3600_000;

function fromRow(row: SimulatorCallRow): SimCall {
  const input = row.script_input as ScriptInput;
  return {
    providerCallId: row.provider_call_id,
    callId: row.call_id,
    conversationId: row.conversation_id,
    input,
    script: buildScript(row.conversation_id, input),
    inbound: row.inbound as Inbound | null,
    timeline: (row.steps as StoredStep[]).map((s) => ({ at: new Date(s.at), step: s.step })),
    nextStep: row.next_step,
  };
}

export function toEvent(call: SimCall, step: Step, at: Date): ProviderEvent {
  const base = { providerCallId: call.providerCallId, callId: call.callId, at };
  if (step.kind === 'inbound' && call.inbound) return { type: 'call.inbound', ...call.inbound, ...base };
  if (step.kind === 'answered')
    return { type: 'call.answered', conversationId: call.conversationId, ...base };
  if (step.kind === 'ended') {
    return { type: 'call.ended', status: step.status, disconnectReason: step.disconnectReason, ...base };
  }
  return { type: 'call.ringing', ...base };
}

/** The steps that have happened by `now`, in order: what the upstream knows of the call at that instant. */
export const happened = (call: SimCall, now: Date) => call.timeline.filter((t) => t.at <= now);

/**
 * The simulator's upstream memory in the database (`simulator_calls`), as an external provider keeps its own:
 * calls, their planned steps and how far their events were delivered, and conversations. It outlives our
 * processes, and every instance of a deployment sees the same calls (one `account`).
 */
export function createCallStore(o: {
  db: Database;
  clock: Clock;
  account: string;
  settleSeconds: () => number;
}) {
  const { db, clock, account } = o;
  const select = () => db.selectFrom('simulator_calls').selectAll();

  return {
    async get(providerCallId: string): Promise<SimCall | undefined> {
      const row = await select().where('provider_call_id', '=', providerCallId).executeTakeFirst();
      return row && fromRow(row);
    },

    async byCallId(callId: string): Promise<SimCall | undefined> {
      const row = await select().where('call_id', '=', callId).executeTakeFirst();
      return row && fromRow(row);
    },

    /** Stores a new call; an outbound call whose `callId` is already placed returns the first placement. */
    async start(call: NewSimCall, steps: Step[]): Promise<SimCall> {
      const t0 = clock.now().getTime();
      const timeline = steps.map((step) => ({ at: new Date(t0 + step.afterSeconds * 1000), step }));
      const last = timeline.at(-1)?.at ?? new Date(t0);
      const inserted = await db
        .insertInto('simulator_calls')
        .values({
          provider_call_id: call.providerCallId,
          account,
          call_id: call.callId,
          conversation_id: call.conversationId,
          script_input: JSON.stringify(call.input),
          inbound: call.inbound && JSON.stringify(call.inbound),
          steps: JSON.stringify(timeline.map((t) => ({ at: t.at.toISOString(), step: t.step }))),
          next_at: timeline[0]?.at ?? null,
          placed_at: new Date(t0),
          ends_at: last,
        })
        .onConflict((oc) => oc.column('call_id').where('call_id', 'is not', null).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (inserted) return fromRow(inserted);
      const first = call.callId ? await this.byCallId(call.callId) : undefined;
      if (!first) throw new Error(`simulator: placement of ${call.callId} neither stored nor found`);
      return first;
    },

    /** Leases this account's calls with a step due by `now` (skip locked: instances claim side by side). */
    async claimDue(now: Date, limit: number, leaseMs: number): Promise<SimCall[]> {
      const { rows } = await sql<SimulatorCallRow>`
        update simulator_calls s set leased_until = ${new Date(now.getTime() + leaseMs)}
        from (select provider_call_id from simulator_calls
              where account = ${account} and next_at <= ${now}
                and (leased_until is null or leased_until <= ${now})
              order by next_at limit ${limit} for update skip locked) picked
        where s.provider_call_id = picked.provider_call_id
        returning s.*`.execute(db);
      return rows.map(fromRow).sort((a, b) => nextAt(a) - nextAt(b));
    },

    /** Records that the call's steps before `nextStep` are delivered and lets the call go. */
    async release(call: SimCall, nextStep: number): Promise<void> {
      await db
        .updateTable('simulator_calls')
        .set({ next_step: nextStep, next_at: call.timeline[nextStep]?.at ?? null, leased_until: null })
        .where('provider_call_id', '=', call.providerCallId)
        .execute();
    },

    async countPlaced(): Promise<number> {
      const row = await db
        .selectFrom('simulator_calls')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account', '=', account)
        .where('call_id', 'is not', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Forgets calls whose every event was delivered and that ended long ago. */
    async purge(now: Date): Promise<void> {
      await db
        .deleteFrom('simulator_calls')
        .where('next_at', 'is', null)
        .where('ends_at', '<', new Date(now.getTime() - RETENTION_MS))
        .execute();
    },

    async readConversation(id: string): Promise<ProviderResult<Conversation>> {
      const row = await select().where('conversation_id', '=', id).executeTakeFirst();
      if (!row) {
        const input = archivedInput(id);
        if (!input) return fail(providerNotFound(`conversation ${id}`));
        const script = buildScript(id, input);
        return ok({
          conversationId: id,
          details: script.details,
          transcript: { state: 'ready', turns: script.turns },
        });
      }
      const call = fromRow(row);
      const now = clock.now();
      const steps = happened(call, now);
      const answeredAt = steps.find((s) => s.step.kind === 'answered')?.at;
      const endedAt = steps.find((s) => s.step.kind === 'ended')?.at;
      if (!answeredAt) return fail(providerNotFound(`conversation ${id}`));
      if (!endedAt) {
        return ok({
          conversationId: id,
          details: null,
          transcript: { state: 'settling', retryAfterSeconds: 30 },
        });
      }
      const details = call.script.details;
      const settledAt = endedAt.getTime() + (call.input.settleSeconds ?? o.settleSeconds()) * 1000;
      if (now.getTime() < settledAt) {
        const retryAfterSeconds = Math.max(1, Math.ceil((settledAt - now.getTime()) / 1000));
        return ok({ conversationId: id, details, transcript: { state: 'settling', retryAfterSeconds } });
      }
      return ok({ conversationId: id, details, transcript: { state: 'ready', turns: call.script.turns } });
    },
  };
}

const nextAt = (call: SimCall) => call.timeline[call.nextStep]?.at.getTime() ?? Number.POSITIVE_INFINITY;
