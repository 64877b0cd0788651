import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../config.ts';
import { controlSocketPath, embeddedDataDir } from './protocol.ts';
import { sendControlRequest } from './socket-client.ts';
import { listenControlSocket } from './socket-server.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vca-control-'));
const echo = async (request: { argv: string[] }) => ({
  stdout: `ran ${request.argv.join(' ')}\n`,
  stderr: '',
  exitCode: request.argv.length,
});

/** A socket file nobody listens on: what a server killed with SIGKILL leaves behind. */
async function staleSocket(file: string): Promise<void> {
  const child = spawn(process.execPath, [
    '-e',
    `require('node:net').createServer().listen(${JSON.stringify(file)}, () => console.log('up'))`,
  ]);
  await new Promise((resolve) => child.stdout.once('data', resolve));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('exit', resolve));
}

describe('control socket', () => {
  it('finds the data folder as loadConfig does, and none on PostgreSQL', () => {
    const envs: NodeJS.ProcessEnv[] = [
      {},
      { DATA_DIR: '' },
      { DATA_DIR: 'var/vca' },
      { DATA_DIR: '/srv/vca/' },
      { DATABASE_URL: '', DATA_DIR: 'x' },
      { DATABASE_URL: 'postgres://u@h/db' },
      { DATABASE_URL: 'postgres://u@h/db', DATA_DIR: 'x' },
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

  it('leaves a file that is not a socket alone (the listen fails instead)', async () => {
    const file = controlSocketPath(tmp());
    fs.writeFileSync(file, 'not ours');
    await assert.rejects(listenControlSocket(file, echo), { code: 'EADDRINUSE' });
    assert.equal(fs.readFileSync(file, 'utf8'), 'not ours');
  });
});
