import type { Clock } from '../clock.ts';
import { fail, ok, providerNotFound } from './errors.ts';
import type { Conversation, ProviderEvent, ProviderResult } from './interface.ts';
import type { Step } from './simulator-plan.ts';
import { archivedInput, buildScript, type Script } from './simulator-script.ts';

export type SimCall = {
  providerCallId: string;
  callId: string | null;
  conversationId: string;
  script: Script;
  answeredAt: Date | null;
  endedAt: Date | null;
  timeline: { at: Date; step: Step }[];
  inbound: { assistantId: string; from: string; to: string; callerName: string | null } | null;
};

const ENDED_CALL_RETENTION_MS = 3600_000;

/** The simulator's upstream memory: calls, their scheduled steps, and their conversations. */
export function createCallStore(clock: Clock, settleSeconds: () => number) {
  const calls = new Map<string, SimCall>();
  const conversations = new Map<string, SimCall>();

  function toEvent(call: SimCall, step: Step, at: Date): ProviderEvent {
    const base = { providerCallId: call.providerCallId, callId: call.callId, at };
    if (step.kind === 'inbound' && call.inbound) return { type: 'call.inbound', ...call.inbound, ...base };
    if (step.kind === 'answered') {
      call.answeredAt = at;
      return { type: 'call.answered', conversationId: call.conversationId, ...base };
    }
    if (step.kind === 'ended') {
      call.endedAt = at;
      return { type: 'call.ended', status: step.status, disconnectReason: step.disconnectReason, ...base };
    }
    return { type: 'call.ringing', ...base };
  }

  return {
    get: (providerCallId: string) => calls.get(providerCallId),

    start(call: Omit<SimCall, 'timeline' | 'answeredAt' | 'endedAt'>, steps: Step[]): SimCall {
      const t0 = clock.now().getTime();
      const timeline = steps.map((step) => ({ at: new Date(t0 + step.afterSeconds * 1000), step }));
      const full: SimCall = { ...call, answeredAt: null, endedAt: null, timeline };
      calls.set(call.providerCallId, full);
      conversations.set(call.conversationId, full);
      return full;
    },

    /** Every step due by `now`, in time order, as provider events; forgets calls long over. */
    takeDue(now: Date): ProviderEvent[] {
      const due: { at: Date; step: Step; call: SimCall }[] = [];
      for (const call of calls.values()) {
        for (let next = call.timeline[0]; next && next.at <= now; next = call.timeline[0]) {
          call.timeline.shift();
          due.push({ ...next, call });
        }
        if (call.endedAt && call.endedAt.getTime() < now.getTime() - ENDED_CALL_RETENTION_MS) {
          calls.delete(call.providerCallId);
          conversations.delete(call.conversationId);
        }
      }
      due.sort((a, b) => a.at.getTime() - b.at.getTime());
      return due.map((d) => toEvent(d.call, d.step, d.at));
    },

    readConversation(id: string): ProviderResult<Conversation> {
      const call = conversations.get(id);
      if (!call) {
        const input = archivedInput(id);
        if (!input) return fail(providerNotFound(`conversation ${id}`));
        const script = buildScript(id, input);
        return ok({
          conversationId: id,
          details: script.details,
          transcript: { state: 'ready', turns: script.turns },
        });
      }
      if (!call.answeredAt) return fail(providerNotFound(`conversation ${id}`));
      const details = call.endedAt ? call.script.details : null;
      if (!call.endedAt) {
        return ok({ conversationId: id, details, transcript: { state: 'settling', retryAfterSeconds: 30 } });
      }
      const settledAt = call.endedAt.getTime() + settleSeconds() * 1000;
      const now = clock.now().getTime();
      if (now < settledAt) {
        const retryAfterSeconds = Math.max(1, Math.ceil((settledAt - now) / 1000));
        return ok({ conversationId: id, details, transcript: { state: 'settling', retryAfterSeconds } });
      }
      return ok({ conversationId: id, details, transcript: { state: 'ready', turns: call.script.turns } });
    },
  };
}
