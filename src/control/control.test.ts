import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../config.ts';
import { ControlSocketError, controlSocketPath, embeddedDataDir, MAX_REQUEST_BYTES } from './protocol.ts';
import { sendControlRequest } from './socket-client.ts';
import { MAX_SOCKET_PATH_BYTES } from './socket-path.ts';
import { listenControlSocket } from './socket-server.ts';

const SERVER_SECRET = 'control-test-server-secret-0123456789abcdef';
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vca-control-'));
const echo = async (request: { argv: string[] }) => ({
  stdout: `ran ${request.argv.join(' ')}\n`,
  stderr: '',
  exitCode: request.argv.length,
});

/** A folder whose control socket path is `bytes` long, past what `listen`/`connect` take as a path. */
function deepFolder(bytes: number): string {
  let dir = tmp();
  while (Buffer.byteLength(controlSocketPath(dir)) < bytes) dir = path.join(dir, 'a-rather-long-folder-name');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** A raw connection that writes `text` and reports whether, and when, the server closed it unanswered. */
function rawClient(file: string, text: string) {
  const socket = net.createConnection(file);
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    answer += chunk;
  });
  socket.on('connect', () => socket.write(text));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  return { socket, closed };
}

const within = <T>(ms: number, promise: Promise<T>): Promise<T | 'still open'> =>
  Promise.race([
    promise,
    new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms)),
  ]);

/** A socket file nobody listens on: what a server killed with SIGKILL leaves behind. */
async function staleSocket(file: string, cwd?: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['-e', `require('node:net').createServer().listen(${JSON.stringify(file)}, () => console.log('up'))`],
    { cwd },
  );
  await new Promise((resolve) => child.stdout.once('data', resolve));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('exit', resolve));
}

/** The same in a folder whose path is too long to listen on by name: bound by a relative name from inside it. */
const staleSocketIn = (dir: string) => staleSocket('control.sock', dir);

describe('control socket', () => {
  it('finds the data folder as loadConfig does, and none on PostgreSQL', () => {
    const envs: NodeJS.ProcessEnv[] = [
      {},
      { DATA_DIR: '' },
      { DATA_DIR: 'var/vca' },
      { DATA_DIR: '/srv/vca/' },
      { DATABASE_URL: '', DATA_DIR: 'x' },
      { DATABASE_URL: 'postgres://u@h/db', SERVER_SECRET },
      { DATABASE_URL: 'postgres://u@h/db', SERVER_SECRET, DATA_DIR: 'x' },
    ];
    for (const env of envs) {
      const config = loadConfig(env);
      assert.equal(embeddedDataDir(env), config.databaseUrl ? null : config.dataDir, JSON.stringify(env));
    }
  });

  it('answers one request per connection on a socket only its owner can use, removed at close', async () => {
    const file = controlSocketPath(tmp());
    const socket = await listenControlSocket(file, echo);
    const stat = fs.statSync(file);
    assert.ok(stat.isSocket());
    assert.equal(stat.mode & 0o777, 0o600);
    const answers = await Promise.all([
      sendControlRequest(file, { argv: ['customers', 'list'], cwd: '/' }),
      sendControlRequest(file, { argv: ['keys', 'list', '--json'], cwd: '/' }),
    ]);
    assert.deepEqual(answers, [
      { stdout: 'ran customers list\n', stderr: '', exitCode: 2 },
      { stdout: 'ran keys list --json\n', stderr: '', exitCode: 3 },
    ]);
    await socket.close();
    assert.equal(fs.existsSync(file), false);
    assert.equal(await sendControlRequest(file, { argv: [], cwd: '/' }), null, 'no server: null');
  });

  it('treats a stale socket as no server, and a new server replaces it', async () => {
    const file = controlSocketPath(tmp());
    await staleSocket(file);
    assert.ok(fs.statSync(file).isSocket(), 'the killed process left its socket');
    assert.equal(await sendControlRequest(file, { argv: ['customers', 'list'], cwd: '/' }), null);
    const socket = await listenControlSocket(file, echo);
    try {
      const answer = await sendControlRequest(file, { argv: ['customers', 'list'], cwd: '/' });
      assert.equal(answer?.stdout, 'ran customers list\n');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    } finally {
      await socket.close();
    }
  });

  it('refuses what is not a command request, and reports a failed run as exit 1', async () => {
    const file = controlSocketPath(tmp());
    const socket = await listenControlSocket(file, async () => {
      throw new Error('boom');
    });
    try {
      const bad = await sendControlRequest(file, { argv: 'customers list', cwd: '/' } as never);
      assert.deepEqual(bad, { stdout: '', stderr: 'error: not a command request\n', exitCode: 2 });
      const failed = await sendControlRequest(file, { argv: [], cwd: '/' });
      assert.deepEqual(failed, { stdout: '', stderr: 'error: boom\n', exitCode: 1 });
    } finally {
      await socket.close();
    }
  });

  it('reports a connection the server cut (a request past the size limit) as a control socket error, not a network one', async () => {
    const file = controlSocketPath(tmp());
    const socket = await listenControlSocket(file, echo);
    try {
      const huge = { argv: ['x'.repeat(MAX_REQUEST_BYTES * 2)], cwd: '/' };
      await assert.rejects(sendControlRequest(file, huge), (error: Error) => {
        assert.ok(error instanceof ControlSocketError, `${error.constructor.name}: ${error.message}`);
        assert.match(error.message, /was it stopping\?/);
        return true;
      });
    } finally {
      await socket.close();
    }
  });

  it('leaves a file that is not a socket alone (the listen fails instead)', async () => {
    const file = controlSocketPath(tmp());
    fs.writeFileSync(file, 'not ours');
    await assert.rejects(listenControlSocket(file, echo), { code: 'EADDRINUSE' });
    assert.equal(fs.readFileSync(file, 'utf8'), 'not ours');
  });

  it('closes a connection that sends no whole request in time; a whole request is answered, however long it runs', async () => {
    const file = controlSocketPath(tmp());
    const slow = async (request: { argv: string[] }) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return echo(request);
    };
    const socket = await listenControlSocket(file, slow, { requestTimeoutMs: 100 });
    try {
      const began = performance.now();
      const silent = rawClient(file, '');
      const partial = rawClient(file, '{"argv":["customers",');
      assert.equal(await within(2_000, silent.closed), '', 'nothing sent: closed unanswered');
      assert.equal(await within(2_000, partial.closed), '', 'no whole line: closed unanswered');
      assert.ok(performance.now() - began < 1_500, 'closed at the deadline');
      const whole = rawClient(file, `${JSON.stringify({ argv: ['customers', 'list'], cwd: '/' })}\n`);
      assert.deepEqual(JSON.parse(String(await within(5_000, whole.closed))), {
        stdout: 'ran customers list\n',
        stderr: '',
        exitCode: 2,
      });
      assert.deepEqual(await sendControlRequest(file, { argv: ['keys', 'list'], cwd: '/' }), {
        stdout: 'ran keys list\n',
        stderr: '',
        exitCode: 2,
      });
    } finally {
      await socket.close();
    }
  });

  it('stops at once beside a connection that has sent nothing, not at its deadline', async () => {
    const file = controlSocketPath(tmp());
    const socket = await listenControlSocket(file, echo, { requestTimeoutMs: 60_000 });
    const idle = rawClient(file, '');
    await new Promise((resolve) => idle.socket.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server has accepted it
    assert.equal(
      await within(
        2_000,
        socket.close().then(() => 'closed'),
      ),
      'closed',
    );
    assert.equal(await within(2_000, idle.closed), '');
  });

  it('listens and answers in a folder of any path length, owner-only, and removes the socket at close', async () => {
    const dir = deepFolder(160);
    const file = controlSocketPath(dir);
    assert.ok(Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES + 50, `${Buffer.byteLength(file)} bytes`);
    await staleSocketIn(dir);
    assert.equal(await sendControlRequest(file, { argv: [], cwd: '/' }), null, 'a stale socket: no server');
    const socket = await listenControlSocket(file, echo);
    try {
      assert.ok(fs.statSync(file).isSocket());
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      const answer = await sendControlRequest(file, { argv: ['customers', 'list'], cwd: '/' });
      assert.equal(answer?.stdout, 'ran customers list\n');
      assert.deepEqual(fs.readdirSync(dir), ['control.sock'], 'nothing else left in the folder');
    } finally {
      await socket.close();
    }
    assert.equal(fs.existsSync(file), false);
    assert.equal(await sendControlRequest(file, { argv: [], cwd: '/' }), null);
    assert.equal(
      await sendControlRequest(controlSocketPath(path.join(dir, 'missing')), { argv: [], cwd: '/' }),
      null,
    );
  });

  it("leaves a live server's socket to it, and never removes a socket that is not its own", async () => {
    const file = controlSocketPath(tmp());
    const first = await listenControlSocket(file, echo);
    await assert.rejects(
      listenControlSocket(file, async () => ({ stdout: 'second', stderr: '', exitCode: 0 })),
      {
        code: 'EADDRINUSE',
      },
    );
    assert.equal((await sendControlRequest(file, { argv: ['x'], cwd: '/' }))?.stdout, 'ran x\n');
    // The first one's file removed under it (by hand) and a new server in its place: the first one's stop must
    // not remove the new server's socket.
    fs.unlinkSync(file);
    const second = await listenControlSocket(file, async () => ({
      stdout: 'second\n',
      stderr: '',
      exitCode: 0,
    }));
    try {
      await first.close();
      assert.equal((await sendControlRequest(file, { argv: [], cwd: '/' }))?.stdout, 'second\n');
    } finally {
      await second.close();
    }
    assert.equal(fs.existsSync(file), false);
  });
});
