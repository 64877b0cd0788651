import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import type { LookupAll } from '../delivery/ssrf-guard.ts';
import { type DashboardClient, signedIn } from '../testing/dashboard.fixtures.ts';
import { allDocBlocks } from '../testing/doc-blocks.ts';
import { type Caller, dryRunCall, newCaller, placeCall } from '../testing/outbound.fixtures.ts';
import { type Receiver, startReceiver } from '../testing/receiver.ts';
import {
  newCustomer,
  startTestApp,
  type TestApp,
  type TestCustomer,
  type TestResponse,
} from '../testing/test-app.ts';

/** The production defaults: WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_TARGETS unset. */
const PRODUCTION = { allowHttpTargets: false, allowPrivateTargets: false };

/** Getting-started §3: a receiver on the developer's own machine, and the 422 the guide shows for it. */
const LOCAL_RECEIVER = 'http://127.0.0.1:3000/hooks';
function guideAnswer(): Record<string, unknown> {
  const blocks = allDocBlocks().filter(
    (b) => b.file === 'docs/getting-started.md' && b.kind === 'output' && b.code.includes('"status": 422'),
  );
  assert.equal(blocks.length, 1, 'getting-started shows one 422');
  const curl = allDocBlocks().find(
    (b) => b.file === 'docs/getting-started.md' && b.code.includes(LOCAL_RECEIVER),
  );
  assert.match(curl?.code ?? '', /WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOW_PRIVATE_TARGETS=true npm start/);
  return JSON.parse(blocks[0]?.code ?? '');
}

const PRIVATE_HINT = /WEBHOOK_ALLOW_PRIVATE_TARGETS=true, for local development only/;
const HTTP_HINT = /WEBHOOK_ALLOW_HTTP=true, for local development only/;

/** Refused targets and the hint their message must carry (null: refused whatever the settings). */
const REFUSED: [url: string, hint: RegExp | null][] = [
  ['https://127.0.0.1/x', PRIVATE_HINT],
  ['https://[::1]/x', PRIVATE_HINT],
  ['https://169.254.169.254/latest/meta-data', PRIVATE_HINT],
  ['https://2130706433/x', PRIVATE_HINT],
  ['https://0x7f.1/x', PRIVATE_HINT],
  ['https://10.0.0.1/x', PRIVATE_HINT],
  ['https://[fd00:ec2::254]/x', PRIVATE_HINT],
  ['https://[::ffff:7f00:1]/x', PRIVATE_HINT],
  ['https://[::ffff:0:7f00:1]/x', PRIVATE_HINT],
  ['https://[::127.0.0.1]/x', PRIVATE_HINT],
  ['https://[2002:7f00:1::]/x', PRIVATE_HINT],
  ['https://localhost./x', PRIVATE_HINT],
  ['https://metadata.google.internal/x', PRIVATE_HINT],
  ['http://hooks.example.com/x', HTTP_HINT],
  ['https://hooks.example.com:0/x', null],
  ['https://user:pw@hooks.example.com/x', null],
];

const ALLOWED = [
  'https://hooks.example.com/a',
  'https://93.184.216.34/hooks',
  'https://[2606:4700:4700::1111]/hooks',
  'https://[::ffff:8.8.8.8]/hooks',
  'https://[::ffff:0:808:808]/hooks',
];

function assertRefused(res: TestResponse, path: string[], hint: RegExp | null) {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.code, 'input.invalid');
  assert.deepEqual(res.body.issues[0].path, path);
  if (hint) assert.match(res.body.issues[0].message, hint);
  else assert.doesNotMatch(res.body.issues[0].message, /WEBHOOK_ALLOW/);
  // The detail names the setting only when that setting alone refuses the target.
  const setting =
    hint === PRIVATE_HINT ? 'WEBHOOK_ALLOW_PRIVATE_TARGETS' : hint ? 'WEBHOOK_ALLOW_HTTP' : null;
  if (setting) assert.ok(res.body.detail.includes(`${setting}=true`), res.body.detail);
  else assert.doesNotMatch(res.body.detail, /WEBHOOK_ALLOW/);
}

describe('target checks at registration, under the production defaults', () => {
  let t: TestApp;
  let c: Caller;
  let placementsBefore: number;
  before(async () => {
    t = await startTestApp({ webhooks: PRODUCTION });
    c = await newCaller(t);
    placementsBefore = await t.services.simulator.placementCount();
  });
  after(() => t.close());

  for (const [url, hint] of REFUSED) {
    it(`POST /webhook-subscriptions refuses ${url}`, async () => {
      const { key } = await newCustomer(t);
      const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
        key,
        body: { url, events: ['call.completed'] },
      });
      assertRefused(res, ['body', 'url'], hint);
    });
  }

  it('answers a receiver on localhost with the 422 getting-started shows, naming both settings', async () => {
    const { key } = await newCustomer(t);
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key,
      body: { url: LOCAL_RECEIVER, events: ['call.completed'] },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual({ ...res.body, request_id: '…' }, guideAnswer());
  });

  it('POST /webhook-subscriptions accepts public targets', async () => {
    const { key } = await newCustomer(t);
    for (const url of ALLOWED) {
      const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
        key,
        body: { url, events: ['call.completed'] },
      });
      assert.equal(res.status, 201, `${url}: ${res.text}`);
      assert.equal(res.body.url, url);
    }
  });

  for (const [url, hint] of REFUSED) {
    it(`POST /outbound-calls refuses callback_url ${url}, placed or dry run, before the provider`, async () => {
      assertRefused(await placeCall(t, c, { callback_url: url }), ['body', 'callback_url'], hint);
      assertRefused(await dryRunCall(t, c, { callback_url: url }), ['body', 'callback_url'], hint);
      assert.equal(await t.services.simulator.placementCount(), placementsBefore);
    });
  }

  it('POST /outbound-calls accepts public callback targets', async () => {
    for (const url of ALLOWED) {
      const dry = await dryRunCall(t, c, { callback_url: url });
      assert.equal(dry.status, 200, `${url}: ${dry.text}`);
      const placed = await placeCall(t, c, { callback_url: url });
      assert.equal(placed.status, 201, `${url}: ${placed.text}`);
      const call = await t.db
        .selectFrom('calls')
        .select('callback_url')
        .where('id', '=', placed.body.id)
        .executeTakeFirstOrThrow();
      assert.equal(call.callback_url, url);
    }
  });
});

describe('delivery under the production defaults judges the resolved address', () => {
  const NAMES: Record<string, string[]> = {
    'hooks.example.test': ['93.184.216.34'],
    'internal.example.test': ['10.0.0.1'],
  };
  let receiver: Receiver;
  let t: TestApp;
  let c: TestCustomer;
  let client: DashboardClient;
  let port: string;

  before(async () => {
    // The receiver's certificate is for the public name, so the name (not the routed loopback
    // address) is what TLS verifies.
    const pems = await generate([{ name: 'commonName', value: 'hooks.example.test' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'hooks.example.test' }] }],
    });
    receiver = await startReceiver({ key: pems.private, cert: pems.cert });
    port = new URL(receiver.url).port;
    const lookup: LookupAll = async (host) => NAMES[host] ?? [];
    t = await startTestApp({
      webhooks: {
        ...PRODUCTION,
        network: {
          ca: pems.cert,
          lookup,
          // Only the public address the guard checked is served, by the loopback receiver.
          routeCheckedAddress: (address) => (address === '93.184.216.34' ? '127.0.0.1' : address),
        },
      },
    });
    c = await newCustomer(t);
    ({ client } = await signedIn(t, c.customerId));
  });
  after(async () => {
    await client.close();
    await receiver.close();
    await t.close();
  });

  async function subscribe(url: string): Promise<{ id: string; secret: string }> {
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async function sendTestEvent(id: string): Promise<string> {
    const location = `/dashboard/webhooks/${id}`;
    await client.get(location);
    const res = await client.post(`${location}/test`, { _csrf: client.csrf() });
    assert.equal(res.status, 303, res.text.slice(0, 300));
    return (await client.get(location)).text;
  }

  it('a test event to a public name reaches its receiver, signed', async () => {
    const sub = await subscribe(`https://hooks.example.test:${port}/hooks`);
    const before = receiver.received.length;
    const page = await sendTestEvent(sub.id);
    assert.match(page, /Test call\.completed event delivered: HTTP 200/);
    const [got] = receiver.received.slice(before);
    assert.ok(got);
    const ts = String(got.headers['x-svc-timestamp']);
    const expected = createHmac('sha256', sub.secret).update(`${ts}.${got.body}`).digest('hex');
    assert.equal(got.headers['x-svc-signature-256'], expected);
    assert.equal(JSON.parse(got.body).data.test, true);
  });

  it('a name that resolves to a private address is accepted at registration and refused at delivery', async () => {
    const sub = await subscribe(`https://internal.example.test:${port}/hooks`);
    const before = receiver.received.length;
    const page = await sendTestEvent(sub.id);
    // The customer learns what kind of address, never which one; the operator's log has both.
    assert.match(
      page,
      /Test call\.completed event failed: the target&#39;s host resolved to a private or reserved address, which is not allowed for webhooks/,
    );
    assert.doesNotMatch(page, /10\.0\.0\.1/);
    assert.equal(receiver.received.length, before, 'nothing reached the receiver');
    const [log] = await t.services.subscriptions.deliveryLog(c.customerId, sub.id);
    assert.equal(log?.delivery_status, 'failed');
    const refused = t.logs
      .map((line) => JSON.parse(line))
      .find((line) => line.msg.startsWith('webhook target refused'));
    assert.deepEqual([refused?.host, refused?.address], ['internal.example.test', '10.0.0.1']);
  });
});

describe('a receiver on localhost with WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_TARGETS on (getting-started §3)', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({ webhooks: { allowHttpTargets: true, allowPrivateTargets: true } });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('subscribes the URL the guide shows, and a test event reaches a plain http loopback receiver', async () => {
    guideAnswer();
    const c = await newCustomer(t);
    const subscribe = (url: string) =>
      t.request('POST', '/api/v1/webhook-subscriptions', {
        key: c.key,
        body: { url, events: ['call.completed'] },
      });
    const guide = await subscribe(LOCAL_RECEIVER);
    assert.equal(guide.status, 201, guide.text);
    assert.equal(new URL(receiver.url).hostname, '127.0.0.1');
    const local = await subscribe(receiver.url);
    assert.equal(local.status, 201, local.text);
    const sent = await t.services.dashboard.sendTestEvent(c.customerId, local.body.id);
    assert.equal(sent.statusCode, 200, sent.error ?? '');
    assert.equal(receiver.received.at(-1)?.headers['x-svc-subscription-id'], local.body.id);
  });
});
