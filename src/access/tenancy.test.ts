import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCalls } from '../calls/calls.repository.ts';
import { utcDay } from '../clock.ts';
import { generateCalls } from '../demo/call-generator.ts';
import { rng } from '../provider/random.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';

/** One customer's objects: a key, a webhook subscription, a call. */
type Owned = { customer: TestCustomer; subscriptionId: string; callId: string };

/**
 * A service method taking a customer id, asked for `of`'s object by `as`: its own is served; another
 * customer's is refused as not found (a read that lists or counts answers nothing of it instead).
 */
type Case = {
  name: string;
  refused: 'not found' | 'nothing';
  ask(t: TestApp, as: string, of: Owned): Promise<unknown>;
  served?(answer: unknown, of: Owned): void;
};

const notFound = { code: 'resource.not_found' };
const ids = (list: unknown) => (list as { id: string }[]).map((x) => x.id);

const CASES: Case[] = [
  {
    name: 'keys.getKey',
    refused: 'not found',
    ask: (t, as, o) => t.services.keys.getKey(as, o.customer.keyId),
  },
  {
    name: 'keys.setScopes',
    refused: 'not found',
    ask: (t, as, o) => t.services.keys.setScopes(as, o.customer.keyId, ['read_calls']),
  },
  {
    name: 'keys.rotateKey',
    refused: 'not found',
    ask: (t, as, o) => t.services.keys.rotateKey(as, o.customer.keyId),
  },
  {
    name: 'keys.listKeys',
    refused: 'nothing',
    ask: async (t, as, o) => ids(await t.services.keys.listKeys(as)).includes(o.customer.keyId) || undefined,
  },
  {
    name: 'subscriptions.get',
    refused: 'not found',
    ask: (t, as, o) => t.services.subscriptions.get(as, o.subscriptionId),
  },
  {
    name: 'subscriptions.setActive',
    refused: 'not found',
    ask: (t, as, o) => t.services.subscriptions.setActive(as, o.subscriptionId, true),
  },
  {
    name: 'subscriptions.deliveryLog',
    refused: 'not found',
    ask: (t, as, o) => t.services.subscriptions.deliveryLog(as, o.subscriptionId),
  },
  { name: 'calls.getCall', refused: 'not found', ask: (t, as, o) => t.services.calls.getCall(as, o.callId) },
  {
    name: 'transcripts.fetchAndStore',
    refused: 'nothing',
    ask: async (t, as, o) => {
      const r = await t.services.transcripts.fetchAndStore(as, o.callId);
      return r.state === 'absent' && r.reason === 'no_call' ? undefined : r;
    },
  },
  {
    name: 'dashboard.deliveryLog',
    refused: 'nothing',
    ask: async (t, as, o) =>
      (await t.services.dashboard.deliveryLog(as, o.subscriptionId, { failedOnly: false, limit: 5, page: 0 }))
        .data[0],
  },
  {
    name: 'dashboard.deliveryCharts',
    refused: 'nothing',
    ask: async (t, as, o) => (await t.services.dashboard.deliveryCharts(as, o.subscriptionId)).hours[0],
  },
  {
    name: 'usage.requestsSince',
    refused: 'nothing',
    ask: async (t, as, o) =>
      (await t.services.usage.requestsSince(as, utcDay(t.clock.now()))).find(
        (r) => r.keyId === o.customer.keyId,
      ),
  },
  {
    name: 'dashboard.usage.report',
    refused: 'nothing',
    ask: async (t, as, o) =>
      (await t.services.dashboard.usage.report(as, 1)).requests.find((r) => r.keyId === o.customer.keyId),
  },
  {
    name: 'keys.revokeKey',
    refused: 'not found',
    ask: (t, as, o) => t.services.keys.revokeKey(as, o.customer.keyId),
  },
  // Last: its own call is gone after it.
  {
    name: 'callRemoval.deleteCall',
    refused: 'not found',
    ask: async (t, as, o) => {
      await t.services.callRemoval.deleteCall(as, o.callId);
      return (await t.services.calls.getCall(as, o.callId).catch(() => 'deleted')) === 'deleted';
    },
  },
];

describe('tenancy: every service method taking a customer id serves its own objects and refuses another’s', () => {
  let t: TestApp;
  let receiver: Receiver;
  let a: Owned;
  let b: Owned;

  async function owned(): Promise<Owned> {
    const customer = await newCustomer(t);
    const { subscription } = await t.services.subscriptions.subscribe(customer.customerId, {
      url: `${receiver.url}/${customer.customerId}`,
      events: ['call.completed'],
    });
    // One attempt in its delivery log, and one request counted.
    await t.services.dashboard.sendTestEvent(customer.customerId, subscription.id);
    assert.equal((await t.request('GET', '/api/v1/auth/whoami', { key: customer.key })).status, 200);
    const assistant = await t.services.assistants.createAssistant({
      customerId: customer.customerId,
      name: 'Front desk',
      voiceId: 'aria',
      phoneNumbers: ['+14155550100'],
    });
    const [call] = generateCalls({
      customerId: customer.customerId,
      assistants: [assistant],
      count: 1,
      end: t.clock.now(),
      days: 1,
      random: rng(7),
    });
    assert.ok(call);
    await insertCalls(t.db, [call]);
    return { customer, subscriptionId: subscription.id, callId: call.id };
  }

  before(async () => {
    t = await startTestApp();
    receiver = await startReceiver();
    a = await owned();
    b = await owned();
    await t.services.usage.flush();
  });
  after(async () => {
    // Their deliveries must not wait for another test's worker in the shared test database.
    for (const o of [a, b])
      await t.services.subscriptions.unsubscribe(o.customer.customerId, o.subscriptionId);
    await t.close();
    await receiver.close();
  });

  for (const c of CASES) {
    it(`${c.name}: another customer's object is ${c.refused === 'not found' ? 'not found' : 'not shown'}; its own is served`, async () => {
      if (c.refused === 'not found') await assert.rejects(c.ask(t, b.customer.customerId, a), notFound);
      else assert.equal(await c.ask(t, b.customer.customerId, a), undefined);
      assert.ok(await c.ask(t, a.customer.customerId, a));
    });
  }
});
