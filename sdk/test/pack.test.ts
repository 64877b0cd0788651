import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { docBlockNamed, fillBlock } from '../../src/testing/doc-blocks.ts';
import { type Receiver, startReceiver } from '../../src/testing/receiver.ts';
import { newCustomer, startTestApp, type TestApp } from '../../src/testing/test-app.ts';
import { callFor, emitEvent, testWorker } from '../../src/testing/webhook.fixtures.ts';
import type { DeliveryWorker } from '../../src/webhooks/delivery-worker.ts';
import { type LocalRegistry, startLocalRegistry } from './local-registry.ts';

/**
 * The SDK as a customer gets it: `npm pack` (which builds it; here in a copy of sdk/, since prepack empties the
 * package's dist/ and CI runs two test processes over one checkout at once), the tarball installed into an empty
 * project outside this repository, then the quickstart and `verifyWebhook` run from there; the same tarball
 * published to a registry of the operator's own and installed by name into fresh projects of both module systems,
 * where the README's `import` and `require` snippets run. All on this Node and on the system's older one (its
 * oldest supported LTS) when there is one.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SDK = path.join(ROOT, 'sdk');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const SERVER_SECRET = 'sdk-pack-test-secret-0123456789abcdef';

/**
 * sdk/ without its build output, beside the tsconfig it extends and the repository's packages, in a folder of its
 * own: the projects that install the tarball must not find those packages above them.
 */
function copyOfSdk(dir: string): string {
  const build = path.join(dir, 'build');
  const copy = path.join(build, 'sdk');
  const skipped = new Set(['dist', 'node_modules'].map((f) => path.join(SDK, f)));
  cpSync(SDK, copy, { recursive: true, filter: (source) => !skipped.has(source) });
  copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(build, 'tsconfig.json'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(build, 'node_modules'), 'dir');
  return copy;
}

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

const PUBLISH_TOKEN = 'operator-publish-token';
/** The README's snippets, by the file each runs as in each kind of project (sdk/README.md, Use). */
const SNIPPETS = {
  commonjs: { 'index.js': 'sdk-require', 'index.mjs': 'sdk-import' },
  module: { 'index.js': 'sdk-import', 'index.cjs': 'sdk-require' },
} as const;

describe('the packed SDK, installed into a fresh project', () => {
  let dir: string;
  let project: string;
  let files: string[];
  let t: TestApp;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let closeWorker: () => Promise<void>;
  let older: { bin: string; version: string } | null;
  let tarball: string;
  let env: NodeJS.ProcessEnv;
  const runtimes = () => [
    { name: `Node ${process.version}`, bin: process.execPath },
    ...(older ? [{ name: `system Node ${older.version}`, bin: older.bin }] : []),
  ];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'voice-calls-sdk-'));
    project = path.join(dir, 'app');
    mkdirSync(project);
    env = { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}` };
    const sdk = copyOfSdk(dir);
    const packed = JSON.parse(
      (await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: sdk, env })).stdout,
    )[0];
    files = packed.files.map((f: { path: string }) => f.path);
    tarball = path.join(dir, packed.filename);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], {
      cwd: project,
      env,
    });
    for (const example of ['quickstart.ts', 'webhook-receiver.ts']) {
      copyFileSync(path.join(ROOT, 'examples', example), path.join(project, example));
    }
    writeFileSync(path.join(project, 'verify.mjs'), VERIFY_SCRIPT);
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

  describe("published to a registry of the operator's own, installed by name into fresh projects", () => {
    let registry: LocalRegistry;
    const projects = { commonjs: '', module: '' };

    before(async () => {
      registry = await startLocalRegistry(PUBLISH_TOKEN);
      const operatorConfig = path.join(dir, 'operator.npmrc');
      writeFileSync(operatorConfig, `${registry.url.replace(/^http:/, '')}:_authToken=${PUBLISH_TOKEN}\n`);
      await run('npm', ['publish', tarball, '--registry', registry.url, '--userconfig', operatorConfig], {
        cwd: dir,
        env,
      });
      const npmrc = fillBlock(docBlockNamed('customer-npmrc'), { 'https://npm.example.com/': registry.url });
      for (const kind of ['commonjs', 'module'] as const) {
        const project = path.join(dir, `fresh-${kind}`);
        mkdirSync(project);
        await run('npm', ['init', '-y'], { cwd: project, env });
        if (kind === 'module') await run('npm', ['pkg', 'set', 'type=module'], { cwd: project, env });
        writeFileSync(path.join(project, '.npmrc'), npmrc);
        await run('npm', ['install', '--no-audit', '--no-fund', '@voice-calls/sdk'], { cwd: project, env });
        for (const [file, name] of Object.entries(SNIPPETS[kind])) {
          writeFileSync(
            path.join(project, file),
            fillBlock(docBlockNamed(name), { 'https://api.example.com': t.url }),
          );
        }
        projects[kind] = project;
      }
    });
    after(() => registry.close());

    it("is published as packed: not private, with the project's licence and its folder in the repository", () => {
      const published = registry.packages.get('@voice-calls/sdk');
      const manifest = published?.versions[published['dist-tags'].latest ?? ''];
      assert.ok(manifest, 'published');
      const sdk = JSON.parse(readFileSync(path.join(SDK, 'package.json'), 'utf8'));
      assert.equal(manifest.version, sdk.version);
      assert.equal(manifest.private, undefined);
      assert.equal(manifest.license, 'LicenseRef-Proprietary');
      assert.deepEqual(manifest.repository, { type: 'git', directory: 'sdk' });
      assert.deepEqual(manifest.engines, sdk.engines);
    });

    it('installs by name into a project of npm init -y (CommonJS) and into one with "type": "module"', () => {
      const typeOf = (kind: keyof typeof projects) =>
        JSON.parse(readFileSync(path.join(projects[kind], 'package.json'), 'utf8')).type ?? 'commonjs';
      assert.equal(typeOf('commonjs'), 'commonjs');
      assert.equal(typeOf('module'), 'module');
      for (const project of Object.values(projects)) {
        const installed = path.join(project, 'node_modules', '@voice-calls', 'sdk', 'dist', 'index.js');
        assert.ok(existsSync(installed), installed);
      }
    });

    /** Every README snippet, as every file it runs as, on every Node: how each exited and what it printed. */
    async function runSnippets(key: string) {
      const results: { where: string; code: number; stdout: string; stderr: string }[] = [];
      for (const runtime of runtimes()) {
        for (const kind of ['commonjs', 'module'] as const) {
          for (const file of Object.keys(SNIPPETS[kind])) {
            const env = {
              PATH: process.env.PATH,
              VOICE_CALLS_API_KEY: key,
              NODE_EXTRA_CA_CERTS: path.join(dir, 'server.pem'),
            };
            const result = await run(runtime.bin, [file], { cwd: projects[kind], env }).then(
              (done) => ({ ...done, code: 0 }),
              (error: { code: number; stdout: string; stderr: string }) => error,
            );
            results.push({ where: `${runtime.name}, ${kind} project, ${file}`, ...result });
          }
        }
      }
      assert.equal(results.length, runtimes().length * 4);
      return results;
    }

    it("runs the README's import and require snippets in both, as .js, .mjs and .cjs, on each Node", async () => {
      const c = await newCustomer(t, { name: 'Fresh project customer' });
      for (const seed of [5, 8, 9]) await callFor(t, c.customerId, seed); // inbound calls, as the seeds draw them
      const inbound = await t.request('GET', '/api/v1/calls?direction=inbound&limit=100', { key: c.key });
      assert.ok(inbound.body.data.length > 0, 'calls to list');
      const expected = [
        'Signed in as Fresh project customer',
        ...inbound.body.data.map((call: { id: string; status: string }) => `${call.id} ${call.status}`),
      ];
      for (const { where, code, stdout, stderr } of await runSnippets(c.key)) {
        assert.equal(code, 0, `${where}: ${stderr}`);
        assert.deepEqual(stdout.trim().split('\n'), expected, where);
        assert.equal(stderr, '', where);
      }
    });

    it('catches a refused key as a ProblemError in both module systems (exit 1, the code on stderr)', async () => {
      for (const { where, code, stdout, stderr } of await runSnippets(`svc_live_${'A'.repeat(36)}`)) {
        assert.equal(code, 1, where);
        assert.equal(stdout, '', where);
        assert.match(stderr, /^auth\.invalid .+ [0-9a-f-]{36}\n$/, where);
      }
    });
  });
});
