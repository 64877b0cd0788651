import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { testDatabaseUrlForChild } from '../testing/test-database.ts';
import { callFor, emitEvent, testWorker } from '../testing/webhook.fixtures.ts';

const SECRET = 'workers-test-secret-0123456789abcdef';

async function burst(t: TestApp, receiver: Receiver, events: number) {
  const c = await newCustomer(t);
  const sub = await t.request('POST', '/api/v1/webhook-subscriptions', {
    key: c.key,
    body: { url: `${receiver.url}/${c.customerId}`, events: ['call.completed'] },
  });
  assert.equal(sub.status, 201);
  const { callId } = await callFor(t, c.customerId);
  const ids: string[] = [];
  for (let i = 0; i < events; i++) ids.push((await emitEvent(t, c.customerId, callId)).id);
  return ids;
}

const receivedIds = (receiver: Receiver) => receiver.received.map((r) => JSON.parse(r.body).id as string);

describe('several workers, one database', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('two workers draining side by side deliver every attempt exactly once', async () => {
    const ids = await burst(t, receiver, 200);
    const a = testWorker(t, SECRET, { concurrency: 8 });
    const b = testWorker(t, SECRET, { concurrency: 8 });
    try {
      await Promise.all([a.worker.drain(), b.worker.drain()]);
    } finally {
      await a.close();
      await b.close();
    }
    const got = receivedIds(receiver).filter((id) => ids.includes(id));
    assert.equal(got.length, 200, 'no attempt made twice');
    assert.equal(new Set(got).size, 200, 'every event delivered');
  });
});

describe('a worker process killed in the middle of a burst', {
  skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL (separate processes)',
}, () => {
  let t: TestApp;
  let receiver: Receiver;
  const children: ChildProcess[] = [];
  before(async () => {
    t = await startTestApp({ serverSecret: SECRET });
    receiver = await startReceiver();
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await receiver.close();
    await t.close();
  });

  const startWorker = () => {
    const url = testDatabaseUrlForChild();
    assert.ok(url);
    const child = spawn(process.execPath, ['src/main.ts', 'worker'], {
      env: {
        ...process.env,
        DATABASE_URL: url,
        REDIS_URL: '',
        SERVER_SECRET: SECRET,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '1000',
        WORKER_CONCURRENCY: '10',
        LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    children.push(child);
    return child;
  };

  async function until(condition: () => boolean, seconds: number) {
    const deadline = Date.now() + seconds * 1000;
    while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }

  it('loses nothing: after a restart every event is delivered at least once', async () => {
    const ids = await burst(t, receiver, 400);
    const mine = () => receivedIds(receiver).filter((id) => ids.includes(id));
    const first = startWorker();
    await until(() => mine().length >= 100, 60);
    first.kill('SIGKILL');
    const atKill = mine().length;
    assert.ok(atKill < 400, 'killed in the middle');
    startWorker();
    await until(() => new Set(mine()).size === 400, 90);
    const delivered = new Set(mine()).size;
    assert.equal(delivered, 400, `lost ${400 - delivered}`);
    // At-least-once: a delivery in flight when the worker died may arrive twice.
    assert.ok(mine().length - delivered <= 10, `duplicates ${mine().length - delivered}`);
  });
});
