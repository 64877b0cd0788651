import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cliWith } from '../testing/cli.ts';
import { embeddedServe, serveOn, until } from '../testing/serve-process.ts';
import { freshSchemaUrl } from '../testing/test-database.ts';

/** The children a suite starts, killed after it, and its folder, removed. */
function cleanedUpAfter(folder: string): ChildProcess[] {
  const running: ChildProcess[] = [];
  after(() => {
    for (const child of running) child.kill('SIGKILL');
    fs.rmSync(folder, { recursive: true, force: true });
  });
  return running;
}

// The operator CLI while `serve` holds the embedded data folder: its commands go through the folder's control
// socket, run in the server, and print what the CLI prints on its own once the server is stopped.
describe('operator CLI beside a running embedded server', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vca-beside-'));
  const socketFile = path.join(dir, 'control.sock');
  const env = embeddedServe(dir);
  const running = cleanedUpAfter(dir);

  const cli = (args: string[], input?: string) => {
    const res = spawnSync(process.execPath, ['src/main.ts', ...args], {
      env: { ...env, LOG_LEVEL: 'silent' },
      input,
      encoding: 'utf8',
      timeout: 180_000,
    });
    return { status: res.status, stdout: res.stdout, stderr: res.stderr };
  };
  const json = (args: string[]) => {
    const res = cli([...args, '--json']);
    assert.equal(res.status, 0, res.stderr);
    return JSON.parse(res.stdout);
  };

  const startServe = () => serveOn(env, running);

  const mode = (file: string) => fs.statSync(file).mode & 0o777;
  let customerId = '';
  const throughServer: Record<string, ReturnType<typeof cli>> = {};
  const sameOnBothPaths = (): string[][] => [
    ['customers', 'list'],
    ['customers', 'list', '--json'],
    ['keys', 'list', '--customer', customerId, '--json'],
    ['users', 'list', '--customer', customerId],
    ['keys', 'revoke', '00000000-0000-4000-8000-000000000000'],
  ];

  it('runs commands in the server through a 0600 socket, fast', async () => {
    const server = await startServe();
    try {
      assert.match(server.banner, /No customer yet\. In another terminal, with this server running:/);
      assert.doesNotMatch(
        server.banner + server.log,
        /WARNING|WEBHOOK_ALLOW/,
        'no warning under the defaults',
      );
      assert.ok(fs.statSync(socketFile).isSocket());
      assert.equal(mode(socketFile), 0o600, 'only the owner of the folder can connect');

      const customer = json(['customers', 'create', '--name', 'Acme', '--rate-limit', '120']);
      assert.equal(customer.name, 'Acme');
      assert.equal(customer.rate_limit_per_minute, 120);
      customerId = customer.id;
      const key = json([
        'keys',
        'create',
        '--customer',
        customerId,
        '--name',
        'zapier',
        '--preset',
        'automation',
      ]);
      assert.match(key.secret, /^svc_live_[0-9A-Za-z]{36}$/);
      assert.deepEqual(key.scopes, ['read_assistants', 'read_calls', 'manage_webhooks']);
      const user = cli(
        ['users', 'create', '--customer', customerId, '--email', 'owner@acme.example', '--password-stdin'],
        'a long operator chosen passphrase\n',
      );
      assert.equal(user.status, 0, user.stderr);
      assert.match(user.stdout, /^Created dashboard user owner@acme\.example \(/);
      const usage = cli(['keys', 'create']);
      assert.equal(usage.status, 2, 'usage errors keep their exit code');
      assert.match(usage.stderr, /required option '--customer <customerId>'/);

      for (const args of sameOnBothPaths()) throughServer[args.join(' ')] = cli(args);
      assert.equal(throughServer['keys revoke 00000000-0000-4000-8000-000000000000']?.status, 1);
      await until(() => /"command":"keys revoke","exitCode":1/.test(server.log));
      assert.match(server.log, /"command":"customers create","exitCode":0/, 'the server ran them');
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.equal(fs.existsSync(socketFile), false, 'the socket goes with the server');
  });

  it('prints the same output and exit codes as the CLI on its own folder', () => {
    assert.equal(fs.existsSync(path.join(dir, 'service.lock')), false, 'no server: the CLI opens the folder');
    for (const args of sameOnBothPaths()) {
      const direct = cli(args);
      const sent = throughServer[args.join(' ')];
      assert.deepEqual(
        { status: direct.status, stdout: direct.stdout, stderr: direct.stderr },
        { status: sent?.status, stdout: sent?.stdout, stderr: sent?.stderr },
        args.join(' '),
      );
    }
  });

  it('works around a stale socket; the next server replaces it and names real ids', async () => {
    const child = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(socketFile)}, () => console.log('up'))`,
    ]);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await Promise.race([new Promise((resolve) => child.stdout.once('data', resolve)), exited]);
    child.kill('SIGKILL');
    await exited;
    assert.ok(fs.statSync(socketFile).isSocket(), 'a killed server leaves its socket');
    assert.equal(
      json(['customers', 'list'])[0].id,
      customerId,
      'no server behind it: the CLI opens the folder',
    );

    const server = await startServe();
    try {
      assert.match(server.banner, new RegExp(`keys create --customer ${customerId} `));
      assert.match(server.banner, /users set-password --email owner@acme\.example/);
      assert.doesNotMatch(server.banner, /users create|<id>/, 'no user to create: one exists');
      assert.equal(mode(socketFile), 0o600);
      const list = cli(['customers', 'list', '--json']);
      assert.equal(list.status, 0, list.stderr);
      assert.equal(list.stdout, throughServer['customers list --json']?.stdout);
      await until(() => /"command":"customers list","exitCode":0/.test(server.log));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});

describe('operator CLI beside a server on a data folder of any path length', () => {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'vca-deep-'));
  let dir = top;
  while (Buffer.byteLength(path.join(dir, 'control.sock')) < 160)
    dir = path.join(dir, 'a-rather-long-folder-name');
  const env = embeddedServe(dir, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  const running = cleanedUpAfter(top);

  it('starts with its control socket, and the CLI reaches it; a relaxed target policy is warned of', async () => {
    const server = await serveOn(env, running);
    const socketFile = path.join(dir, 'control.sock');
    try {
      assert.ok(Buffer.byteLength(socketFile) >= 160);
      assert.ok(fs.statSync(socketFile).isSocket());
      assert.equal(fs.statSync(socketFile).mode & 0o777, 0o600);
      assert.doesNotMatch(server.log, /no control socket/);
      assert.match(
        server.banner,
        /\n {2}WARNING: WEBHOOK_ALLOW_PRIVATE_TARGETS is on: .+ unset it in production\.\n/,
      );
      const warned = server.log
        .split('\n')
        .find((line) => line.includes('WEBHOOK_ALLOW_PRIVATE_TARGETS is on'));
      assert.equal(warned && JSON.parse(warned).level, 40, 'logged as a warning');
      const created = cliWith({ ...env, LOG_LEVEL: 'silent' })(
        'customers',
        'create',
        '--name',
        'Deep',
        '--json',
      );
      assert.equal(created.status, 0, created.stderr);
      assert.equal(created.json().name, 'Deep');
      await until(() => /"command":"customers create","exitCode":0/.test(server.log));
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.equal(fs.existsSync(socketFile), false, 'the socket goes with the server');
  });
});

describe('the start banner of a server on PostgreSQL', {
  skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL',
}, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vca-pg-banner-'));
  const running = cleanedUpAfter(dir);

  it("prints a keys create line that works pasted as printed, in a shell without the server's settings", async () => {
    const secret = 'pg-banner-server-secret-0123456789abcdef';
    const postgres = {
      DATABASE_URL: (await freshSchemaUrl()) ?? '',
      SERVER_SECRET: secret,
      LOG_LEVEL: 'silent',
    };
    const customer = cliWith(postgres)('customers', 'create', '--name', 'On PostgreSQL', '--json');
    assert.equal(customer.status, 0, customer.stderr);
    const server = await serveOn(
      { ...process.env, ...postgres, DATA_DIR: dir, REDIS_URL: '', PORT: '0', LOG_LEVEL: 'info' },
      running,
    );
    try {
      const line = /^ {4}(.* keys create --customer .*)$/m.exec(server.banner)?.[1];
      assert.ok(line, server.banner);
      assert.ok(
        line.startsWith(`DATA_DIR=${dir} npm run cli -- keys create --customer ${customer.json().id} `),
        line,
      );
      assert.doesNotMatch(server.banner, new RegExp(secret), 'the secret is never printed');
      const pasted = spawnSync('sh', ['-c', line], {
        env: { ...process.env, DATABASE_URL: '', SERVER_SECRET: '', REDIS_URL: '', LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 180_000,
      });
      assert.equal(pasted.status, 0, pasted.stderr);
      assert.match(pasted.stdout, /Key \(shown once, store it now\):\nsvc_live_/);
      await until(() => /"command":"keys create","exitCode":0/.test(server.log));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
