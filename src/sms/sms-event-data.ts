import type { SmsMessageRow } from '../db/index.ts';

/** `sms.sent` data (webhooks/envelope.ts `smsSentDataSchema`): the message at its final status. */
export function smsSentData(m: SmsMessageRow, sentAt: Date | null): Record<string, unknown> {
  return {
    message_id: m.id,
    direction: 'outgoing',
    assistant_id: m.assistant_id,
    from: m.from_number,
    to: m.to_number,
    status: m.status,
    error_code: m.error_code,
    error_message: m.error_message,
    segments: m.segments,
    cost: Number(m.cost_usd),
    external_id: m.external_id,
    metadata: m.metadata ?? null,
    queued_at: m.created_at.toISOString(),
    sent_at: sentAt?.toISOString() ?? null,
    completed_at: (m.final_at ?? m.updated_at).toISOString(),
  };
}

/** `sms.received` data (webhooks/envelope.ts `smsReceivedDataSchema`). */
export function smsReceivedData(m: SmsMessageRow): Record<string, unknown> {
  return {
    message_id: m.id,
    direction: 'incoming',
    assistant_id: m.assistant_id,
    from: m.from_number,
    to: m.to_number,
    body: m.body,
    segments: m.segments,
    received_at: m.created_at.toISOString(),
  };
}
