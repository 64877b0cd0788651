import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type KyselyPlugin, sql } from 'kysely';
import { createSecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { SendResult, WebhookSender } from '../delivery/http-sender.ts';
import { createLogger } from '../logger.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { callFor, emitEvent, subscriptionRow } from '../testing/webhook.fixtures.ts';
import { createDeliveryWorker, type DeliveryWorkerOptions, SLOW_ATTEMPT_MS } from './delivery-worker.ts';
import { FAILURE_FOLD_MS } from './failure-streak.ts';

const SERVER_SECRET = 'batching-test-secret-0123456789abcdef';

/** Polls until `done` (the worker runs on real timers), for at most 10 s; the assertions after it decide. */
async function waitFor(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 10_000; !done() && Date.now() < deadline; )
    await new Promise((r) => setTimeout(r, 5));
}
const LEASE_MS = 5_000;

/** A sender that answers by the target's path (`/500`, `/503`; anything else 200) and records each POST. */
function fakeSender(): WebhookSender & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    async send(url, _headers, body): Promise<SendResult> {
      sent.push(`${url} ${JSON.parse(body).id}`);
      const status = Number(url.split('/').at(-1)) || 200;
      const ok = status < 300;
      return { ok, statusCode: status, error: ok ? null : `HTTP ${status}`, latencyMs: 1 };
    },
    async close() {},
  };
}

describe('finished attempts are recorded in batches', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    // Earlier tests share the database: what they left due would otherwise take this suite's first claims.
    await worker().drain();
  });
  after(async () => {
    await t.close();
  });

  /** Only runOnce, drain and stop write: nothing is written by size or time on its own. */
  const worker = (o: Partial<DeliveryWorkerOptions> = {}) =>
    createDeliveryWorker({
      db: t.db,
      clock: t.clock,
      sender: fakeSender(),
      secretBox: createSecretBox(SERVER_SECRET),
      logger: createLogger('silent'),
      concurrency: 20,
      perSubscription: 5,
      leaseMs: LEASE_MS,
      pollMs: 20,
      batchSize: 1_000,
      batchDelayMs: 3_600_000,
      random: () => 0.5,
      ...o,
    });

  async function subscribe(key: string, path: string): Promise<string> {
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key,
      body: { url: `http://127.0.0.1:9/${path}`, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  /** A subscription (answering `status`, or never: `hang`) with `events` deliveries due. */
  async function withDeliveries(status: number | 'hang', events: number) {
    const c = await newCustomer(t);
    const id = await subscribe(c.key, String(status));
    const { callId } = await callFor(t, c.customerId);
    for (let i = 0; i < events; i++) await emitEvent(t, c.customerId, callId);
    return id;
  }

  const deliveriesOf = (subscriptionId: string) =>
    t.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', subscriptionId).execute();

  const transactionsOf = async (
    table: 'webhook_attempts' | 'webhook_subscriptions',
    column: string,
    id: string,
  ) =>
    (
      await sql<{
        tx: string;
      }>`select distinct xmin::text as tx from ${sql.table(table)} where ${sql.ref(column)} = ${id}`.execute(
        t.db,
      )
    ).rows.map((r) => r.tx);

  it('writes a batch in one transaction: attempt rows, delivery states and failure counts', async () => {
    const ok = await withDeliveries(200, 3);
    const failing = await withDeliveries(500, 3);
    await worker().runOnce();

    const [okTx] = await transactionsOf('webhook_attempts', 'subscription_id', ok);
    assert.deepEqual(await transactionsOf('webhook_attempts', 'subscription_id', failing), [okTx]);
    assert.deepEqual(await transactionsOf('webhook_subscriptions', 'id', failing), [okTx], 'count in it too');
    const now = t.clock.now().getTime();
    for (const d of await deliveriesOf(ok)) {
      assert.deepEqual([d.status, d.last_status_code, d.leased_until], ['delivered', 200, null]);
      assert.equal(d.delivered_at?.getTime(), now);
    }
    for (const d of await deliveriesOf(failing)) {
      assert.deepEqual(
        [d.status, d.last_error, d.leased_until, d.attempts],
        ['pending', 'HTTP 500', null, 1],
      );
      assert.equal(d.next_attempt_at.getTime(), now + 10_000);
    }
    const row = await subscriptionRow(t, failing);
    assert.deepEqual([row.consecutive_failures, row.is_active], [1, true], 'three at once count as one');
    assert.equal(row.failure_counted_at?.getTime(), now);
  });

  it('failures in one batch fold into one counted failure, which disables at exactly the tenth', async () => {
    const id = await withDeliveries(503, 5);
    const lastCounted = new Date(t.clock.now().getTime() - FAILURE_FOLD_MS);
    await t.db
      .updateTable('webhook_subscriptions')
      .set({ consecutive_failures: 9, failure_counted_at: lastCounted })
      .where('id', '=', id)
      .execute();
    const outcomes: { ok: boolean; disabled: boolean }[] = [];
    await worker({ onAttempt: (a) => outcomes.push(a) }).runOnce();

    const row = await subscriptionRow(t, id);
    assert.deepEqual([row.consecutive_failures, row.is_active], [10, false]);
    assert.equal(row.disabled_reason, '10 consecutive delivery failures');
    assert.equal(row.disabled_at?.getTime(), t.clock.now().getTime());
    assert.equal(outcomes.length, 5);
    assert.equal(outcomes.filter((o) => o.disabled).length, 1, 'one attempt disabled it');
  });

  it('a failure inside the fold window of the last counted one, in an earlier batch, is folded', async () => {
    const id = await withDeliveries(503, 1);
    const lastCounted = new Date(t.clock.now().getTime() - FAILURE_FOLD_MS + 1);
    await t.db
      .updateTable('webhook_subscriptions')
      .set({ consecutive_failures: 9, failure_counted_at: lastCounted })
      .where('id', '=', id)
      .execute();
    await worker().runOnce();
    const row = await subscriptionRow(t, id);
    assert.deepEqual([row.consecutive_failures, row.is_active], [9, true]);
    assert.equal(row.failure_counted_at?.getTime(), lastCounted.getTime());
  });

  it('a batch that cannot be written leaves its deliveries leased, to be sent again when the lease ends', async () => {
    const id = await withDeliveries(200, 1);
    const logs: string[] = [];
    let failing = true;
    const failWrites: KyselyPlugin = {
      transformQuery({ node }) {
        if (
          failing &&
          node.kind === 'RawNode' &&
          node.sqlFragments.join('').includes('insert into webhook_attempts')
        )
          throw new Error('connection lost');
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const sender = fakeSender();
    const w = worker({
      db: t.db.withPlugin(failWrites) as Database,
      sender,
      logger: createLogger('error', { write: (line: string) => logs.push(line) }),
    });
    const mine = () => sender.sent.filter((s) => s.includes('/200 '));

    await w.runOnce();
    assert.equal(mine().length, 1);
    let [d] = await deliveriesOf(id);
    assert.deepEqual([d?.status, d?.attempts], ['pending', 1]);
    assert.equal(d?.leased_until?.getTime(), t.clock.now().getTime() + LEASE_MS, 'still leased');
    assert.match(logs.join(''), /webhook attempts not recorded/);

    failing = false;
    await w.runOnce();
    assert.equal(mine().length, 1, 'not claimed again while the lease holds');
    t.clock.advance(LEASE_MS);
    await w.runOnce();
    assert.equal(mine().length, 2, 'sent again: at least once');
    assert.equal(new Set(mine()).size, 1, 'the same event');
    [d] = await deliveriesOf(id);
    assert.deepEqual([d?.status, d?.attempts], ['delivered', 2]);
  });

  it('the next claim goes out while answers wait to be written, up to twice the concurrency in all', async () => {
    // Four receivers, 15 events each: more than twice the worker's 20 slots.
    const ids = await Promise.all([0, 1, 2, 3].map(() => withDeliveries(202, 15)));
    const sender = fakeSender();
    // Nothing is written until stop(): every answer stays unrecorded.
    const w = worker({ sender });
    w.start();
    await waitFor(() => sender.sent.length >= 40);
    // Claims that were still out have come back by now; with 40 answers unrecorded none may start.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(sender.sent.length, 40, 'twice the concurrency sent, then claims wait for the writes');
    await w.stop();
    const states = (await Promise.all(ids.map(deliveriesOf))).flat().map((d) => d.status);
    assert.equal(states.filter((s) => s === 'delivered').length, 40);
    assert.equal(states.filter((s) => s === 'pending').length, 20);
    await worker().drain();
  });

  it('attempts set aside as slow leave the allowance for answers waiting to be written whole', async () => {
    const sender = fakeSender();
    const hanging: (() => void)[] = [];
    const send: WebhookSender['send'] = (url, headers, body) =>
      url.endsWith('/hang')
        ? new Promise((resolve) =>
            hanging.push(() =>
              resolve({ ok: false, statusCode: null, error: 'timeout', latencyMs: SLOW_ATTEMPT_MS }),
            ),
          )
        : sender.send(url, headers, body);
    // A receiver that never answers takes its share (5 of the 20 slots), and the attempts turn slow.
    await withDeliveries('hang', 5);
    const w = worker({ sender: { ...sender, send } });
    w.start();
    await waitFor(() => hanging.length === 5);
    t.clock.advance(SLOW_ATTEMPT_MS);
    // Then the healthy receivers: nothing is written until stop(), so every answer stays unrecorded.
    await Promise.all([0, 1, 2, 3].map(() => withDeliveries(202, 15)));
    await waitFor(() => sender.sent.length >= 40);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(hanging.length, 5, 'the hung receiver holds its share, no more');
    // Sharing the allowance, the five set aside would have stopped the claims at 35.
    assert.equal(sender.sent.length, 40, 'twice the concurrency answered, beside the five set aside');
    for (const answer of hanging) answer();
    await w.stop();
    await worker().drain();
  });

  it('stop() records the attempts still waiting in the buffer', async () => {
    const id = await withDeliveries(200, 2);
    const w = worker();
    w.start();
    await w.stop();
    const delivered = await deliveriesOf(id);
    assert.deepEqual(
      delivered.map((d) => d.status),
      ['delivered', 'delivered'],
    );
    const attempts = await t.db
      .selectFrom('webhook_attempts')
      .select('status_code')
      .where('subscription_id', '=', id)
      .execute();
    assert.equal(attempts.length, 2);
  });
});
