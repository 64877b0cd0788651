import assert from 'node:assert/strict';
import type { OutboundLimitsChange } from '../customers/customers.service.ts';
import type { AssistantRow } from '../db/tables/assistants.table.ts';
import { SCOPES } from '../keys/scopes.ts';
import { runProviderTick } from '../simulator/simulator-loop.ts';
import { newCustomer, type TestApp, type TestResponse } from './test-app.ts';

/** Test numbers of the simulator (see simulator/simulator-plan.ts): the last four digits pick the outcome. */
export const ANSWERS = '+14155550199';
export const BUSY = '+14155550191';
export const NO_ANSWER = '+14155550192';

export type Caller = { customerId: string; keyId: string; key: string; assistant: AssistantRow };

/**
 * A fresh customer with an active assistant that has a number, and a key (options: cap, countries, scopes; the
 * customer's outbound limits, set by the operator before the key is made).
 */
export async function newCaller(
  t: TestApp,
  o: {
    cap?: string;
    countries?: string[];
    scopes?: readonly string[];
    rateLimitPerMinute?: number;
    limits?: OutboundLimitsChange;
  } = {},
): Promise<Caller> {
  const c = await newCustomer(t, { rateLimitPerMinute: o.rateLimitPerMinute ?? 600, scopes: [] });
  if (o.limits) await t.services.customers.setOutboundLimits(c.customerId, o.limits);
  const { key, secret } = await t.services.keys.createKey({
    customerId: c.customerId,
    name: 'outbound',
    scopes: o.scopes ?? SCOPES,
    ...(o.cap ? { dailySpendCapUsd: o.cap } : {}),
    ...(o.countries ? { allowedCountries: o.countries } : {}),
  });
  const assistant = await newAssistant(t, c.customerId);
  return { customerId: c.customerId, keyId: key.id, key: secret, assistant };
}

export function newAssistant(
  t: TestApp,
  customerId: string,
  o: { isActive?: boolean; phoneNumbers?: string[]; language?: string } = {},
): Promise<AssistantRow> {
  return t.services.assistants.createAssistant({
    customerId,
    name: 'Reminders',
    voiceId: 'orion',
    language: o.language ?? 'en-US',
    phoneNumbers: o.phoneNumbers ?? ['+14155550102'],
    isActive: o.isActive ?? true,
  });
}

export function assertProblem(res: TestResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.code, code, res.text);
  assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
}

export function placeCall(
  t: TestApp,
  c: Pick<Caller, 'key' | 'assistant'>,
  body: Record<string, unknown> = {},
  o: { idempotencyKey?: string; query?: string } = {},
): Promise<TestResponse> {
  return t.request('POST', `/api/v1/outbound-calls${o.query ?? ''}`, {
    key: c.key,
    body: { assistant_id: c.assistant.id, to_number: ANSWERS, ...body },
    ...(o.idempotencyKey ? { headers: { 'idempotency-key': o.idempotencyKey } } : {}),
  });
}

/** POST /outbound-calls/dry-run with placeCall's body: every check, nothing placed. */
export function dryRunCall(
  t: TestApp,
  c: Pick<Caller, 'key' | 'assistant'>,
  body: Record<string, unknown> = {},
  o: { idempotencyKey?: string } = {},
): Promise<TestResponse> {
  return t.request('POST', '/api/v1/outbound-calls/dry-run', {
    key: c.key,
    body: { assistant_id: c.assistant.id, to_number: ANSWERS, ...body },
    ...(o.idempotencyKey ? { headers: { 'idempotency-key': o.idempotencyKey } } : {}),
  });
}

/** Moves the test clock and lets the simulated world catch up (provider events, post-processing). */
export async function advance(t: TestApp, seconds: number): Promise<void> {
  t.clock.advance(seconds * 1000);
  await runProviderTick(t.services, t.clock.now());
}

/** A gate for the `slow` fault: the provider holds each call until the test opens it. */
export function providerGate(t: TestApp) {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let waiting = 0;
  const arrivals: (() => void)[] = [];
  t.services.simulator.configure({
    fault: 'slow',
    slowMs: 0,
    sleep: async () => {
      waiting += 1;
      for (const a of arrivals.splice(0)) a();
      await opened;
    },
  });
  return {
    /** Resolves once `n` provider calls are held at the gate. */
    async held(n: number): Promise<void> {
      while (waiting < n) await new Promise<void>((resolve) => arrivals.push(resolve));
    },
    open(): void {
      open();
      t.services.simulator.configure({ fault: 'none' });
    },
  };
}
