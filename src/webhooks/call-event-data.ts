import type { CallRow } from '../db/index.ts';

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;
const webhookDirection = (d: string) => (d === 'inbound' ? 'incoming' : 'outgoing');

/** `call.completed` data, exactly spec 6.4; never carries external_id. */
export function callCompletedData(call: CallRow): Record<string, unknown> {
  return {
    call_id: call.id,
    direction: webhookDirection(call.direction),
    from: call.from_number,
    to: call.to_number,
    duration_seconds: call.duration_seconds ?? 0,
    cost: Number(call.cost_usd ?? '0'),
    status: call.status,
    started_at: iso(call.started_at),
    ended_at: iso(call.ended_at),
    conversation_id: call.conversation_id,
    assistant_id: call.assistant_id,
    disconnect_reason: call.disconnect_reason,
  };
}

/** `call.insight.received` data (spec 6.4): external_id and variables only on API-placed outbound calls. */
export function insightReceivedData(
  call: CallRow,
  insights: { name: string; result: unknown }[],
): Record<string, unknown> {
  const echo =
    call.api_initiated && call.direction === 'outbound'
      ? { external_id: call.external_id, variables: call.variables ?? null }
      : {};
  return {
    call_id: call.id,
    assistant_id: call.assistant_id,
    from: call.from_number,
    to: call.to_number,
    duration_seconds: call.duration_seconds ?? 0,
    started_at: iso(call.started_at),
    ...echo,
    insights: insights.map(({ name, result }) => ({ name, result })),
  };
}
