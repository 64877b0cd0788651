import { newCallRow } from '../calls/index.ts';
import type { NewCall } from '../db/index.ts';
import type { Principal } from '../keys/index.ts';
import type { AssistantInfo } from './checks.ts';
import type { OutboundCallBody } from './outbound.schema.ts';

/** A call placed through the API: queued, with the key that placed it and what the request carried. */
export function outboundCallRow(
  p: Principal,
  body: OutboundCallBody,
  a: AssistantInfo,
  id: string,
  now: Date,
): NewCall {
  return newCallRow({
    id,
    customer_id: p.customerId,
    assistant_id: a.id,
    direction: 'outbound',
    status: 'queued',
    started_at: now,
    from_number: a.phone_numbers[0] ?? '',
    to_number: body.to_number,
    api_initiated: true,
    api_key_id: p.keyId,
    external_id: body.external_id ?? null,
    variables: body.variables === undefined ? null : JSON.stringify(body.variables),
    metadata: body.metadata === undefined ? null : JSON.stringify(body.metadata),
    callback_url: body.callback_url ?? null,
    livemode: p.mode === 'live',
    created_at: now,
    updated_at: now,
  });
}
