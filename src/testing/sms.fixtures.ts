import { SCOPES } from '../keys/scopes.ts';
import type { Caller } from './outbound.fixtures.ts';
import { newCaller } from './outbound.fixtures.ts';
import type { TestApp, TestResponse } from './test-app.ts';

/** SMS test numbers (simulator/sms-simulator.ts): the last two digits of +1NXX55501xx pick the outcome. */
export const DELIVERED = '+14155550199';
export const FAILS = '+14155550180';
export const UNDELIVERED = '+14155550181';
export const OPTED_OUT = '+14155550182';
export const LANDLINE_REFUSED = '+14155550183';
export const RATE_LIMITED = '+14155550190';
export const PROVIDER_DOWN = '+14155550198';

export function sendSms(
  t: TestApp,
  c: Pick<Caller, 'key' | 'assistant'>,
  body: Record<string, unknown> = {},
  o: { idempotencyKey?: string; path?: string } = {},
): Promise<TestResponse> {
  return t.request('POST', o.path ?? '/api/v1/sms/send', {
    key: c.key,
    body: { assistant_id: c.assistant.id, to_number: DELIVERED, body: 'See you Friday at 7 pm.', ...body },
    ...(o.idempotencyKey ? { headers: { 'idempotency-key': o.idempotencyKey } } : {}),
  });
}

/** A customer's live sender and a test-mode key of the same customer (same assistant). */
export async function smsPair(t: TestApp, o: Parameters<typeof newCaller>[1] = {}) {
  const live = await newCaller(t, o);
  const { key, secret } = await t.services.keys.createKey({
    customerId: live.customerId,
    name: 'test mode',
    scopes: SCOPES,
    mode: 'test',
  });
  return { live, test: { ...live, keyId: key.id, key: secret } as Caller };
}
