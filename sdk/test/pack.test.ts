import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Receiver, startReceiver } from '../../src/testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../../src/testing/test-app.ts';
import { callFor, emitEvent, testWorker } from '../../src/testing/webhook.fixtures.ts';
import type { DeliveryWorker } from '../../src/webhooks/delivery-worker.ts';

/**
 * The SDK as a customer gets it: `npm pack` (which builds it), the tarball installed into an empty project
 * outside this repository, then the quickstart and `verifyWebhook` run from there, on this Node and on the
 * system's older one (its oldest supported LTS) when there is one.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SDK = path.join(ROOT, 'sdk');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const SERVER_SECRET = 'sdk-pack-test-secret-0123456789abcdef';

/** The newest older Node on the PATH (the system's), if any: the SDK must run there too. */
async function olderNode(): Promise<{ bin: string; version: string } | null> {
  for (const bin of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(bin)) continue;
    const version = (await run(bin, ['--version'])).stdout.trim();
    if (Number(version.slice(1).split('.')[0]) < Number(process.versions.node.split('.')[0])) {
      return { bin, version };
    }
  }
  return null;
}

const VERIFY_SCRIPT = `import { verifyWebhook, WebhookVerificationError } from '@voice-calls/sdk';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { secret, headers, body } = JSON.parse(input);
try {
  console.log(JSON.stringify({ id: verifyWebhook(secret, headers, body).id }));
} catch (error) {
  if (!(error instanceof WebhookVerificationError)) throw error;
  console.log(JSON.stringify({ reason: error.reason }));
}
`;

/** Compiles only if the installed declarations resolve all the way to the generated schema (no silent `any`). */
const TYPES_PROBE = `import type { CallDetail, Identity, WebhookEvent } from '@voice-calls/sdk';
type IsAny<T> = 0 extends 1 & T ? true : false;
export const resolved: [IsAny<Identity>, IsAny<CallDetail['status']>, IsAny<WebhookEvent['event']>] = [false, false, false];
`;

const REQUIRE_SCRIPT = `const sdk = require('@voice-calls/sdk');
console.log(typeof sdk.verifyWebhook, typeof sdk.VoiceCallsClient);
`;

describe('the packed SDK, installed into a fresh project', () => {
  let dir: string;
  let project: string;
  let files: string[];
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let older: { bin: string; version: string } | null;
  const runtimes = () => [
    { name: `Node ${process.version}`, bin: process.execPath },
    ...(older ? [{ name: `system Node ${older.version}`, bin: older.bin }] : []),
  ];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'voice-calls-sdk-'));
    project = path.join(dir, 'app');
    mkdirSync(project);
    const env = { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}` };
    const packed = JSON.parse(
      (await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: SDK, env })).stdout,
    )[0];
    files = packed.files.map((f: { path: string }) => f.path);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(dir, packed.filename)], {
      cwd: project,
      env,
    });
    for (const example of ['quickstart.ts', 'webhook-receiver.ts']) {
      copyFileSync(path.join(ROOT, 'examples', example), path.join(project, example));
    }
    writeFileSync(path.join(project, 'verify.mjs'), VERIFY_SCRIPT);
    writeFileSync(path.join(project, 'require.cjs'), REQUIRE_SCRIPT);
    older = await olderNode();
    t = await startTestApp({ serverSecret: SERVER_SECRET });
    ({ worker, close: closeWorker } = testWorker(t, SERVER_SECRET));
    receiver = await startReceiver();
    writeFileSync(path.join(dir, 'server.pem'), t.cert);
  });
  after(async () => {
    await closeWorker();
    await receiver.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ships built JavaScript with its types, and no TypeScript source', () => {
    for (const file of [
      'package.json',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/schema.d.ts',
      'openapi.json',
    ]) {
      assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
    }
    assert.deepEqual(
      files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts')),
      [],
    );
  });

  it('type-checks the examples against the installed declarations, none of them any', async () => {
    writeFileSync(path.join(project, 'types-probe.ts'), TYPES_PROBE);
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          strict: true,
          skipLibCheck: true,
          rewriteRelativeImportExtensions: true,
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
          types: ['node'],
          outDir: 'js',
        },
        files: ['quickstart.ts', 'webhook-receiver.ts', 'types-probe.ts'],
      }),
    );
    const tsc = await run(path.join(BIN, 'tsc'), ['-p', project]).catch((error) => error);
    assert.equal(tsc.stdout, '', 'tsc found no error');
    assert.ok(existsSync(path.join(project, 'js', 'quickstart.js')));
  });

  it('runs the quickstart: the .ts on this Node, the compiled .js on the older one', async (ctx) => {
    if (!older) ctx.diagnostic('no older Node on this machine: ran on this one only');
    const c = await newCustomer(t, { name: 'Packed SDK customer' });
    for (const runtime of runtimes()) {
      const script = runtime.bin === process.execPath ? 'quickstart.ts' : path.join('js', 'quickstart.js');
      const { stdout } = await run(runtime.bin, [script], {
        cwd: project,
        env: {
          PATH: process.env.PATH,
          VOICE_CALLS_API_KEY: c.key,
          VOICE_CALLS_BASE_URL: t.url,
          NODE_EXTRA_CA_CERTS: path.join(dir, 'server.pem'),
        },
      });
      assert.match(stdout, /^Key of Packed SDK customer; scopes:/m, runtime.name);
      assert.match(stdout, /^Assistants: none$/m, runtime.name);
      assert.match(stdout, /^0 inbound calls in all$/m, runtime.name);
    }
  });

  it('verifies a real delivery with verifyWebhook, and refuses it tampered with, on each Node', async () => {
    const c = await newCustomer(t);
    const res = await t.request('POST', '/api/v1/webhook-subscriptions', {
      key: c.key,
      body: { url: `${receiver.url}/packed`, events: ['call.completed'] },
    });
    assert.equal(res.status, 201, res.text);
    const { callId } = await callFor(t, c.customerId);
    await emitEvent(t, c.customerId, callId, 'call.completed', { call_id: callId, status: 'completed' });
    await worker.drain();
    const delivery = receiver.received.find((r) => r.body.includes(callId));
    assert.ok(delivery, 'delivered');
    const verify = async (bin: string, body: string) => {
      const child = run(bin, ['verify.mjs'], { cwd: project });
      child.child.stdin?.end(JSON.stringify({ secret: res.body.secret, headers: delivery.headers, body }));
      return JSON.parse((await child).stdout);
    };
    for (const runtime of runtimes()) {
      assert.deepEqual(await verify(runtime.bin, delivery.body), { id: delivery.headers['x-svc-event-id'] });
      assert.deepEqual(await verify(runtime.bin, delivery.body.replace('completed', 'failed')), {
        reason: 'signature_mismatch',
      });
    }
  });

  it('loads with require() too (CommonJS callers, Node ≥ 20.19)', async () => {
    for (const runtime of runtimes()) {
      const { stdout } = await run(runtime.bin, ['require.cjs'], { cwd: project });
      assert.equal(stdout.trim(), 'function function', runtime.name);
    }
  });
});
