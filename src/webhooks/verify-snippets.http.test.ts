import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { allDocBlocks, type DocBlock, describeBlock, snippetFolder } from '../testing/doc-blocks.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from '../testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';
import { callFor, emitEvent, testWorker } from '../testing/webhook.fixtures.ts';
import type { DeliveryWorker } from './delivery-worker.ts';

/**
 * Every webhook verification snippet of the docs, taken from the Markdown at test time (src/testing/doc-blocks.ts),
 * judges real deliveries of the test server: before a secret rotation, during its grace (both headers; the
 * receiver holding the old secret, and the new one), after it (only the new secret), and refuses a changed body,
 * another secret, a missing signature and a stale timestamp. How each class of snippet is fed:
 * - `function verify`: the test calls `verify(secret, headers, rawBody)` (Node's lower-case headers and a
 *   Buffer; in Python a case-insensitive `email.message.Message`, as `http.server` gives, and bytes).
 * - `verify-handler`: the block is the body of a node:http request listener `(req, res)` (`handle(event)`
 *   given); the delivery is replayed to it byte for byte, and a 2xx answer is acceptance.
 * - `verify-statements`: the block runs in such a listener once the body is read, given `secret`, `req`,
 *   `headers` (one string per name) and `rawBody`, with WEBHOOK_SECRET set; a throw is refusal.
 * - `function verifyFrom` (`verify_from`): `verifyFrom(secrets, headers, rawBody)` with the receiver's secrets by
 *   subscription id, judging the deliveries of two subscriptions to one URL (and the rotation's); `true` or an
 *   event is acceptance.
 * The snippets read the real clock, so the deliveries are made at the real time (the test clock set to it).
 */

const run = promisify(execFile);
const SERVER_SECRET = 'verify-snippets-test-secret-0123456789ab';
const ANOTHER_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const HOUR = 3_600_000;

type Verdict = 'accepted' | 'refused';
type Case = {
  name: string;
  secret: string;
  headers: Record<string, string>;
  body: string;
  expected: Verdict;
};
/** A delivery judged by a receiver that holds `secrets` by subscription id and picks one by the header. */
type PickCase = Omit<Case, 'secret'> & { secrets: Record<string, string> };
/** The functions that pick the secret by X-Svc-Subscription-Id (docs/webhooks.md, several subscriptions). */
const PICKERS = ['verifyFrom', 'verify_from'];

const headersOf = (req: ReceivedRequest): Record<string, string> =>
  Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
const changed = (body: string): string => {
  const out = body.replace('"completed"', '"cancelled"');
  assert.notEqual(out, body);
  return out;
};
const without = (headers: Record<string, string>, ...names: string[]) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));

/** Arguments in JSON: `{ bytes }` is a body (Buffer, bytes), `{ headers }` a header map, `{ map }` a plain map. */
type Argument =
  | string
  | { bytes: string }
  | { headers: Record<string, string> }
  | { map: Record<string, string> };

const JS_CALLER = `import { readFileSync } from 'node:fs';
const fn = (await import(process.argv[2]))[process.argv[3]];
const arg = (a) => (a.bytes !== undefined ? Buffer.from(a.bytes) : (a.headers ?? a.map ?? a));
const calls = JSON.parse(readFileSync(process.argv[4], 'utf8'));
console.log(JSON.stringify(calls.map((args) => fn(...args.map(arg)))));
`;

const PYTHON_CALLER = `import importlib.util, json, sys
from email.message import Message

spec = importlib.util.spec_from_file_location("snippet", sys.argv[1])
snippet = importlib.util.module_from_spec(spec)
spec.loader.exec_module(snippet)
fn = getattr(snippet, sys.argv[2])

def arg(a):
    if isinstance(a, dict) and "bytes" in a:
        return a["bytes"].encode()
    if isinstance(a, dict) and "headers" in a:
        message = Message()
        for name, value in a["headers"].items():
            message[name] = value
        return message
    if isinstance(a, dict) and "map" in a:
        return a["map"]
    return a

with open(sys.argv[3]) as f:
    print(json.dumps([fn(*[arg(a) for a in args]) for args in json.load(f)]))
`;

/**
 * Calls the function a block defines with each argument list (through caller.mjs or caller.py in `dir`);
 * returns what it returned, in order.
 */
async function callFunction(dir: string, block: DocBlock, calls: Argument[][]): Promise<unknown[]> {
  const name = block.detail;
  const base = path.join(dir, `${block.file.replaceAll('/', '-')}-${block.line}`);
  writeFileSync(`${base}.calls.json`, JSON.stringify(calls));
  let command: string[];
  if (block.lang === 'python') {
    writeFileSync(`${base}.py`, block.code);
    command = ['python3', path.join(dir, 'caller.py'), `${base}.py`, name, `${base}.calls.json`];
  } else {
    const file = `${base}.${block.lang === 'ts' ? 'ts' : 'mjs'}`;
    writeFileSync(file, `${block.code}\nexport { ${name} };\n`);
    command = [
      process.execPath,
      '--conditions=@voice-calls/source',
      path.join(dir, 'caller.mjs'),
      file,
      name,
      `${base}.calls.json`,
    ];
  }
  const [bin = '', ...args] = command;
  const { stdout } = await run(bin, args, { cwd: dir, timeout: 60_000 });
  return JSON.parse(stdout);
}

/**
 * A node:http server whose listener is the block (`verify-handler`) or runs it on the read body
 * (`verify-statements`); each case is posted to it in turn with its secret set, and its answer read.
 */
function listenerProgram(block: DocBlock): string {
  const lines = block.code.split('\n');
  const imports = lines.filter((l) => /^import .* from '[^']+';$/.test(l));
  const body = lines.filter((l) => !imports.includes(l)).join('\n');
  assert.doesNotMatch(body, /^import /m, `${describeBlock(block)}: one import a line`);
  const listener =
    block.kind === 'verify-handler'
      ? `(req, res) => {\n${body}\n}`
      : `(req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    try {
${body}
      res.writeHead(204).end();
    } catch (error) {
      res.writeHead(400).end(String(error));
    }
  });
}`;
  return `${imports.join('\n')}
import { readFileSync } from 'node:fs';
import http from 'node:http';

let secret = '';
const handle = (_event: unknown) => {};
const server = http.createServer(${listener});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };
const statuses: number[] = [];
for (const c of JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8'))) {
  secret = c.secret;
  process.env.WEBHOOK_SECRET = c.secret;
  statuses.push(
    await new Promise<number>((resolve, reject) => {
      const req = http.request({ port, method: 'POST', path: '/hooks', headers: c.headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(c.body);
    }),
  );
}
server.close();
console.log(JSON.stringify(statuses));
`;
}

async function runListener(dir: string, block: DocBlock, cases: Case[]): Promise<Verdict[]> {
  const base = path.join(dir, `${block.file.replaceAll('/', '-')}-${block.line}`);
  writeFileSync(`${base}.ts`, listenerProgram(block));
  // Replayed as received, less what belongs to the connection (Node sets its own length for the body sent).
  const replayed = cases.map((c) => ({
    ...c,
    headers: without(c.headers, 'host', 'connection', 'content-length', 'transfer-encoding'),
  }));
  writeFileSync(`${base}.cases.json`, JSON.stringify(replayed));
  const { stdout } = await run(
    process.execPath,
    ['--conditions=@voice-calls/source', `${base}.ts`, `${base}.cases.json`],
    { cwd: dir, timeout: 60_000 },
  );
  return (JSON.parse(stdout) as number[]).map((status) => {
    assert.ok(status >= 200 && status < 500, `${describeBlock(block)} answered ${status}`);
    return status < 300 ? 'accepted' : 'refused';
  });
}

describe('the verification snippets of the docs, against real deliveries and a secret rotation', () => {
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let dir: string;
  const cases: Case[] = [];
  const pickCases: PickCase[] = [];
  const blocks = allDocBlocks();
  const pickers = blocks.filter((b) => b.kind === 'function' && PICKERS.includes(b.detail));
  const verifiers = blocks.filter(
    (b) =>
      b.kind === 'verify-handler' ||
      b.kind === 'verify-statements' ||
      (b.kind === 'function' && b.detail === 'verify'),
  );

  async function subscribe(
    c: TestCustomer,
    events = ['call.completed'],
  ): Promise<{ id: string; secret: string }> {
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: receiver.url, events },
    });
    assert.equal(res.status, 201, res.text);
    return { id: res.body.id, secret: res.body.secret };
  }
  async function rotate(c: TestCustomer, id: string): Promise<string> {
    const res = await t.request('POST', `/api/v1/webhook-subscriptions/${id}/rotate-secret`, {
      key: c.key,
      body: {},
    });
    assert.equal(res.status, 200, res.text);
    return res.body.secret;
  }
  /** One call.completed for the customer at `at` (test clock), as each of its subscriptions got it. */
  async function deliverAll(c: TestCustomer, at: Date): Promise<ReceivedRequest[]> {
    t.clock.set(at);
    const { callId } = await callFor(t, c.customerId);
    const event = await emitEvent(t, c.customerId, callId);
    await worker.drain();
    const got = receiver.received.filter((r) => r.body.includes(event.id));
    assert.ok(got.length > 0, 'delivered');
    return got;
  }
  async function deliver(c: TestCustomer, at: Date): Promise<ReceivedRequest> {
    const [got] = await deliverAll(c, at);
    assert.ok(got);
    return got;
  }

  before(async () => {
    dir = snippetFolder('vca-verify-');
    writeFileSync(path.join(dir, 'caller.mjs'), JS_CALLER);
    writeFileSync(path.join(dir, 'caller.py'), PYTHON_CALLER);
    receiver = await startReceiver();
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET));
    const now = Date.now();
    // B's rotation is two hours old: its grace (one hour on the test server) is over.
    const b = await newCustomer(t);
    t.clock.set(new Date(now - 3 * HOUR));
    const subB = await subscribe(b);
    t.clock.set(new Date(now - 2 * HOUR));
    const newB = await rotate(b, subB.id);

    const a = await newCustomer(t);
    t.clock.set(new Date(now - HOUR / 2));
    const subA = await subscribe(a);
    const stale = await deliver(a, new Date(now - 10 * 60_000));
    const one = await deliver(a, new Date());
    t.clock.set(new Date());
    const newA = await rotate(a, subA.id);
    const grace = await deliver(a, new Date());
    const past = await deliver(b, new Date());

    assert.equal(one.headers['x-svc-signature-256-previous'], undefined, 'before: one signature');
    assert.ok(grace.headers['x-svc-signature-256-previous'], 'during the grace: both');
    assert.equal(past.headers['x-svc-signature-256-previous'], undefined, 'after the grace: one');
    /** A delivery as received, or with its body or headers changed, judged with `secret`. */
    const judged = (
      name: string,
      secret: string,
      req: ReceivedRequest,
      expected: Verdict,
      change: { body?: string; headers?: Record<string, string> } = {},
    ): Case => ({ name, secret, headers: headersOf(req), body: req.body, expected, ...change });
    const noSignature = without(
      headersOf(grace),
      'x-svc-signature-256',
      'x-svc-signature-256-previous',
      'webhook-signature',
    );
    cases.push(
      judged('before: the secret', subA.secret, one, 'accepted'),
      judged('before: another secret', ANOTHER_SECRET, one, 'refused'),
      judged('before: a changed body', subA.secret, one, 'refused', { body: changed(one.body) }),
      judged('grace: the old secret', subA.secret, grace, 'accepted'),
      judged('grace: the new secret', newA, grace, 'accepted'),
      judged('grace: old secret, changed body', subA.secret, grace, 'refused', { body: changed(grace.body) }),
      judged('grace: new secret, changed body', newA, grace, 'refused', { body: changed(grace.body) }),
      judged('grace: another secret', ANOTHER_SECRET, grace, 'refused'),
      judged('after: the new secret', newB, past, 'accepted'),
      judged('after: the old secret', subB.secret, past, 'refused'),
      judged('no signature header', newA, grace, 'refused', { headers: noSignature }),
      judged('signed 10 minutes ago', subA.secret, stale, 'refused'),
    );

    // Two subscriptions of one customer to the receiver's one URL: one event, two deliveries, two secrets.
    const c = await newCustomer(t);
    t.clock.set(new Date());
    const first = await subscribe(c);
    const second = await subscribe(c, ['call.completed', 'call.insight.received']);
    const both = await deliverAll(c, new Date());
    const to = (id: string) => {
      const req = both.find((r) => r.headers['x-svc-subscription-id'] === id);
      assert.ok(req, `delivered to ${id}`);
      return req;
    };
    const held = { [first.id]: first.secret, [second.id]: second.secret };
    const picked = (
      name: string,
      secrets: Record<string, string>,
      req: ReceivedRequest,
      expected: Verdict,
      change: { body?: string; headers?: Record<string, string> } = {},
    ): PickCase => ({ name, secrets, headers: headersOf(req), body: req.body, expected, ...change });
    const naming = (req: ReceivedRequest, id: string) => ({ ...headersOf(req), 'x-svc-subscription-id': id });
    pickCases.push(
      picked('two to one URL: the first', held, to(first.id), 'accepted'),
      picked('two to one URL: the second', held, to(second.id), 'accepted'),
      picked('only the other secret held', { [second.id]: second.secret }, to(first.id), 'refused'),
      picked('the id changed to the other', held, to(first.id), 'refused', {
        headers: naming(to(first.id), second.id),
      }),
      picked('no subscription header', held, to(first.id), 'refused', {
        headers: without(headersOf(to(first.id)), 'x-svc-subscription-id'),
      }),
      picked('an id of Object.prototype', held, to(first.id), 'refused', {
        headers: naming(to(first.id), 'constructor'),
      }),
      picked('a changed body', held, to(second.id), 'refused', { body: changed(to(second.id).body) }),
      picked("another customer's delivery", held, past, 'refused'),
      picked('grace: the old secret held', { ...held, [subA.id]: subA.secret }, grace, 'accepted'),
      picked('grace: the new secret held', { ...held, [subA.id]: newA }, grace, 'accepted'),
      picked('signed 10 minutes ago', { [subA.id]: subA.secret }, stale, 'refused'),
    );
  });
  after(async () => {
    await closeWorker();
    await receiver.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the snippets: the SDK, by hand in JavaScript and Python, Standard Webhooks, and picking the secret', () => {
    const found = verifiers.map((b) => `${b.file} ${b.kind} ${b.lang}`);
    for (const expected of [
      'docs/getting-started.md verify-handler ts',
      'docs/getting-started.md function js',
      'docs/getting-started.md function python',
      'docs/webhooks.md verify-statements ts',
      'docs/webhooks.md function js',
    ]) {
      assert.ok(found.includes(expected), `${expected} in ${found.join(', ')}`);
    }
    const picking = pickers.map((b) => `${b.file} ${b.lang}`);
    for (const expected of ['docs/webhooks.md ts', 'docs/webhooks.md js', 'docs/webhooks.md python']) {
      assert.ok(picking.includes(expected), `${expected} in ${picking.join(', ')}`);
    }
    assert.ok(
      verifiers.some((b) => b.code.includes("from 'standardwebhooks'")),
      'the Standard Webhooks library',
    );
  });

  for (const block of verifiers) {
    it(`${describeBlock(block)} accepts either secret during the grace, and refuses what it must`, async () => {
      const verdicts =
        block.kind === 'function'
          ? (
              await callFunction(
                dir,
                block,
                cases.map((c) => [c.secret, { headers: c.headers }, { bytes: c.body }]),
              )
            ).map((ok) => (ok === true ? 'accepted' : 'refused'))
          : await runListener(dir, block, cases);
      assert.deepEqual(
        Object.fromEntries(cases.map((c, i) => [c.name, verdicts[i]])),
        Object.fromEntries(cases.map((c) => [c.name, c.expected])),
      );
    });
  }

  for (const block of pickers) {
    it(`${describeBlock(block)} picks the secret by X-Svc-Subscription-Id, and refuses what it must`, async () => {
      const results = await callFunction(
        dir,
        block,
        pickCases.map((c) => [{ map: c.secrets }, { headers: c.headers }, { bytes: c.body }]),
      );
      const verdicts = results.map((r) =>
        r === true || (typeof r === 'object' && r !== null) ? 'accepted' : 'refused',
      );
      assert.deepEqual(
        Object.fromEntries(pickCases.map((c, i) => [c.name, verdicts[i]])),
        Object.fromEntries(pickCases.map((c) => [c.name, c.expected])),
      );
    });
  }

  it('the secret conversions give the standard-base64 spelling of an old secret, in every language', async () => {
    const converters = blocks.filter(
      (b) => b.kind === 'function' && b.detail !== 'verify' && !PICKERS.includes(b.detail),
    );
    assert.deepEqual(converters.map((b) => `${b.lang} ${b.detail}`).sort(), [
      'python standard_secret',
      'ts standardSecret',
    ]);
    const keys = [
      Buffer.alloc(32, 0xfb),
      Buffer.alloc(32, 0xff),
      Buffer.from('0123456789abcdef0123456789abcdef'),
    ];
    const old = keys.map((k) => `whsec_${k.toString('base64url')}`);
    assert.ok(
      old.some((s) => /[-_]/.test(s)),
      'old secrets with - and _',
    );
    for (const block of converters) {
      assert.deepEqual(
        await callFunction(
          dir,
          block,
          old.map((s) => [s]),
        ),
        keys.map((k) => `whsec_${k.toString('base64')}`),
        describeBlock(block),
      );
    }
  });
});
