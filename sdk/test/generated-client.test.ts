import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { docBlockNamed, fillBlock, REPO_ROOT, snippetFolder } from '../../src/testing/doc-blocks.ts';
import { type Caller, newCaller } from '../../src/testing/outbound.fixtures.ts';
import { startTestApp, type TestApp } from '../../src/testing/test-app.ts';

/**
 * sdk/README.md's typed client of one's own: `openapi-typescript` on the document the server serves, then the
 * README's `openapi-fetch` client type-checked with the project's `tsc` and run against the live server. Each
 * operation has one success shape, so the client reads `data` without narrowing; a planted second shape must make
 * `tsc` refuse it, as must leaving out the narrowing the README shows for the spec's own 202s.
 */
const run = promisify(execFile);
const BIN = path.join(REPO_ROOT, 'node_modules', '.bin');
const SERVED = 'https://api.example.com/api/v1/openapi.json';
const PROBE_NARROWING =
  "if ('challenge' in sub.data) throw new Error('a verification probe answer, not a subscription');\n";

type Operation = { responses: Record<string, unknown> };
type Document = { paths: Record<string, Record<string, Operation>> };

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  },
  files: ['client.ts'],
};

describe('a client generated from the served OpenAPI document (openapi-typescript, openapi-fetch)', () => {
  let t: TestApp;
  let dir: string;
  let c: Caller;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    t = await startTestApp();
    dir = snippetFolder('vca-openapi-fetch-');
    writeFileSync(path.join(dir, 'server.pem'), t.cert);
    c = await newCaller(t);
    env = {
      ...process.env,
      PATH: `${BIN}${path.delimiter}${process.env.PATH}`,
      NODE_EXTRA_CA_CERTS: path.join(dir, 'server.pem'),
    };
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A folder with the README's client (changed as given), typed by the README's command run on `source`. */
  async function project(name: string, source: string, change: Record<string, string> = {}): Promise<string> {
    const folder = path.join(dir, name);
    mkdirSync(folder);
    const command = fillBlock(docBlockNamed('openapi-typescript-command'), { [SERVED]: source }).trim();
    await run('bash', ['-c', command], { cwd: folder, env });
    const client = fillBlock(docBlockNamed('openapi-fetch-client'), {
      'https://api.example.com': t.url,
      '<assistant id>': c.assistant.id,
      ...change,
    });
    writeFileSync(path.join(folder, 'client.ts'), client);
    writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    return folder;
  }

  /** tsc's errors in a folder: '' when it type-checks. */
  const typeErrors = async (folder: string): Promise<string> =>
    run(path.join(BIN, 'tsc'), ['-p', folder], { cwd: folder }).then(
      ({ stdout }) => stdout,
      (error: { stdout: string }) => error.stdout,
    );

  /** The served document, with `change` made to it, saved where the README's command can read it. */
  async function servedDocument(name: string, change: (doc: Document) => void = () => {}): Promise<string> {
    const res = await t.request('GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    const doc: Document = res.body;
    change(doc);
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(doc));
    return file;
  }

  it('types the README client from the served document, and tsc accepts it as written', async () => {
    const folder = await project('served', SERVED.replace('https://api.example.com', t.url));
    assert.equal(await typeErrors(folder), '');
  });

  it('runs the README client against the live server: list, dry run, place, transcript, subscribe', async () => {
    const folder = await project('live', SERVED.replace('https://api.example.com', t.url));
    const runClient = async () =>
      (
        await run(process.execPath, ['client.ts'], {
          cwd: folder,
          env: { ...env, VOICE_CALLS_API_KEY: c.key },
        })
      ).stdout
        .trim()
        .split('\n');
    const [allowed, placed, transcript, subscribed] = await runClient();
    assert.equal(allowed, 'allowed: true');
    const [, id] = /^placed ([0-9a-f-]{36}) queued$/.exec(placed ?? '') ?? [];
    assert.ok(id, placed);
    assert.match(transcript ?? '', /^transcript pending: ask again in \d+ s$/);
    assert.match(subscribed ?? '', /^subscribed sub_[0-9a-f]{24}$/);
    // Again: the calls listed first, the same Idempotency-Key answers with the same call, the subscription exists.
    const again = await runClient();
    assert.deepEqual(again.slice(0, 1), [`${id} queued`]);
    assert.deepEqual(again.slice(1, 3), [allowed, placed]);
    assert.equal(again.at(-1), subscribed?.replace('subscribed', 'already subscribed'));
  });

  it('fails to type-check once an operation has two success shapes (a 200 planted beside the placement)', async () => {
    const planted = await servedDocument('planted', (doc) => {
      const place = doc.paths['/outbound-calls']?.post;
      const dryRun = doc.paths['/outbound-calls/dry-run']?.post;
      assert.ok(place && dryRun);
      place.responses['200'] = dryRun.responses['200'];
    });
    const folder = await project('planted', planted);
    const errors = [
      ...(await typeErrors(folder)).matchAll(/^client\.ts\((\d+),\d+\): error (TS\d+): (.*)$/gm),
    ];
    assert.ok(errors.length > 0, 'tsc refused it');
    const source = readFileSync(path.join(folder, 'client.ts'), 'utf8').split('\n');
    for (const [, line, code, message] of errors) {
      assert.equal(code, 'TS2339', message);
      assert.match(source[Number(line) - 1] ?? '', /placed\.data\.(id|status)/, `line ${line}: ${message}`);
    }
    const served = await servedDocument('unplanted');
    assert.equal(await typeErrors(await project('unplanted', served)), '', 'the same document, unchanged');
  });

  it('fails to type-check a subscription read without narrowing the verification probe out first', async () => {
    const served = await servedDocument('served');
    const errors = await typeErrors(await project('unnarrowed', served, { [PROBE_NARROWING]: '' }));
    assert.match(errors, /client\.ts\(\d+,\d+\): error TS2339: Property 'id' does not exist on type/);
  });
});
