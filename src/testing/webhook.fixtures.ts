import assert from 'node:assert/strict';
import { insertCalls } from '../calls/calls.repository.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import type { AssistantRow } from '../db/tables/assistants.table.ts';
import type { EventRow, EventType } from '../db/tables/events.table.ts';
import { createWebhookSender, type WebhookSender } from '../delivery/http-sender.ts';
import { generateCalls } from '../demo/call-generator.ts';
import { createLogger } from '../logger.ts';
import { rng } from '../provider/random.ts';
import {
  createDeliveryWorker,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
} from '../webhooks/delivery-worker.ts';
import { recordEvent } from '../webhooks/events.repository.ts';
import { newCustomer, type TestApp, type TestCustomer } from './test-app.ts';

/** One assistant and one finished call for the customer: something events can be about. */
export async function callFor(
  t: Pick<TestApp, 'db' | 'clock' | 'services'>,
  customerId: string,
  seed = 1,
): Promise<{ callId: string; assistant: AssistantRow }> {
  const assistant = await t.services.assistants.createAssistant({
    customerId,
    name: 'Desk',
    voiceId: 'aria',
    phoneNumbers: ['+14155550100'],
  });
  const [row] = generateCalls({
    customerId,
    assistants: [assistant],
    count: 1,
    end: t.clock.now(),
    days: 1,
    random: rng(seed),
  });
  if (!row) throw new Error('no call generated');
  await insertCalls(t.db, [row]);
  return { callId: row.id, assistant };
}

/** Records an event the way the lifecycle does: in a transaction, which also writes its deliveries. */
export async function emitEvent(
  t: Pick<TestApp, 'db' | 'clock'>,
  customerId: string,
  callId: string,
  type: EventType = 'call.completed',
  data: Record<string, unknown> = { call_id: callId, status: 'completed' },
): Promise<EventRow> {
  return t.db
    .transaction()
    .execute((tx) => recordEvent(tx, { customerId, type, callId, data, occurredAt: t.clock.now() }));
}

/** A delivery worker over the test app's database and clock, sending through `sender`, with the test's own slots. */
export const workerOver = (
  t: TestApp,
  serverSecret: string,
  sender: WebhookSender,
  settings: Pick<DeliveryWorkerOptions, 'concurrency' | 'perSubscription' | 'leaseMs' | 'pollMs'> &
    Pick<DeliveryWorkerOptions, 'random' | 'notifications'>,
): DeliveryWorker =>
  createDeliveryWorker({
    db: t.db,
    clock: t.clock,
    sender,
    secretBox: createSecretBox(serverSecret),
    logger: createLogger('silent'),
    ...settings,
  });

/** A delivery worker on the test app's database: no jitter, short timeouts, trusting the test certificate. */
export function testWorker(
  t: TestApp,
  serverSecret: string,
  options: { timeoutMs?: number; concurrency?: number } = {},
): { worker: DeliveryWorker; close(): Promise<void> } {
  const sender = createWebhookSender({
    // Generous by default: a loaded CI machine must not turn a slow connect into a failed delivery.
    // Tests of timeouts pass a short one.
    timeoutMs: options.timeoutMs ?? 5_000,
    allowHttp: true,
    allowPrivateTargets: true,
    ca: t.cert,
  });
  const worker = workerOver(t, serverSecret, sender, {
    concurrency: options.concurrency ?? 20,
    perSubscription: 5,
    leaseMs: 5_000,
    pollMs: 20,
    random: () => 0.5,
  });
  return {
    worker,
    async close() {
      await worker.stop();
      await sender.close();
    },
  };
}

/** Subscribes `url` to `events` with the customer's key (201); its id and its secret, shown this once. */
export async function subscribe(
  t: Pick<TestApp, 'request'>,
  c: Pick<TestCustomer, 'key'>,
  url: string,
  events: string[] = ['call.completed'],
): Promise<{ id: string; secret: string }> {
  const res = await t.request('POST', '/api/v1/webhook-subscriptions', { key: c.key, body: { url, events } });
  assert.equal(res.status, 201, res.text);
  return { id: String(res.body.id), secret: String(res.body.secret) };
}

/** A subscription's stored row, for assertions on its state (failure count, active, reason). */
export const subscriptionRow = (t: TestApp, id: string) =>
  t.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** The types of the events recorded for a call, in their order. */
export const eventTypesOf = async (t: TestApp, callId: string): Promise<string[]> =>
  (
    await t.db.selectFrom('events').select('type').where('call_id', '=', callId).orderBy('sequence').execute()
  ).map((e) => e.type);

/** A new customer subscribed to call.completed at `url`, and one call.completed event of theirs: one pending delivery. */
export async function subscribedEvent(
  t: TestApp,
  url: string,
): Promise<{ customer: TestCustomer; subscriptionId: string; callId: string; event: EventRow }> {
  const customer = await newCustomer(t);
  const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
    key: customer.key,
    body: { url, events: ['call.completed'] },
  });
  assert.equal(sub.status, 201, sub.text);
  const { callId } = await callFor(t, customer.customerId);
  const event = await emitEvent(t, customer.customerId, callId);
  return { customer, subscriptionId: sub.body.id, callId, event };
}
