import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { npmStartCommand } from '../scripts/start-command.ts';
import { KEPT_IN_DATA_DIR } from './storage.ts';
import { notPrivate } from './testing/file-modes.ts';

/**
 * `npm start` as package.json says: `prestart` (the bundle, rebuilt when the sources changed), then its command's
 * environment (`NAME=value` words before `node`) and arguments.
 */
function npmStart(): { env: Record<string, string>; args: string[] } {
  const { scripts } = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
    scripts: Record<string, string>;
  };
  assert.match(scripts.prestart ?? '', /^node /);
  assert.match(scripts.start ?? '', /^([A-Z_]+=\S+ )*node /);
  const prestart = spawnSync(process.execPath, (scripts.prestart ?? '').split(' ').slice(1), {
    encoding: 'utf8',
  });
  assert.equal(prestart.status, 0, prestart.stderr);
  const start = npmStartCommand('.');
  return { env: start.env, args: [...start.flags, start.script, ...start.scriptArgs] };
}

describe('npm start (serve) on the embedded default', () => {
  it('prints the URL and a working demo key, serves HTTPS, and shuts down cleanly on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vca-serve-'));
    fs.chmodSync(dir, 0o777);
    // Under the loosest umask an operator could have: the data folder is still the service's alone (issue 34).
    const start = npmStart();
    const child = spawn('/bin/sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, ...start.args], {
      env: {
        ...process.env,
        ...start.env,
        DATA_DIR: dir,
        PORT: '0',
        DATABASE_URL: '',
        REDIS_URL: '',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let banner = '';
    child.stderr?.on('data', (d: Buffer) => {
      banner += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!/Try: curl/.test(banner) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    try {
      const url = /listening on (https:\/\/[^\s]+)\/api\/v1/.exec(banner)?.[1];
      const key = /(svc_live_[0-9A-Za-z]{36})/.exec(banner)?.[1];
      assert.ok(url && key, banner);
      // A first start says what it is doing before the banner, rather than staying silent for seconds.
      assert.match(banner, /^Creating the embedded database in .+\nAdding demo data…\n/, banner);
      const ca = fs.readFileSync(path.join(dir, 'tls', 'cert.pem'), 'utf8');
      const agent = new Agent({ connect: { ca } });
      const res = await request(`${url}/api/v1/auth/whoami`, {
        headers: { authorization: `Bearer ${key}` },
        dispatcher: agent,
      });
      const body = (await res.body.json()) as { customer_name: string };
      assert.equal(res.statusCode, 200);
      assert.equal(body.customer_name, 'Demo Dental Group');
      const calls = await request(`${url}/api/v1/calls?limit=5`, {
        headers: { authorization: `Bearer ${key}` },
        dispatcher: agent,
      });
      assert.equal(calls.statusCode, 200, 'the demo key reads the demo calls');
      await calls.body.dump();
      // The bundle (dist/) carries the dashboard's static files beside the module that reads them.
      const css = await request(`${url}/dashboard/static/dashboard.css`, { dispatcher: agent });
      assert.equal(css.statusCode, 200);
      assert.equal(await css.body.text(), fs.readFileSync('src/dashboard/static/dashboard.css', 'utf8'));
      await agent.close();
      assert.ok(fs.existsSync(path.join(dir, 'service.lock')));
      assert.deepEqual(
        notPrivate(dir),
        [],
        'the demo data, the certificate, the secret and the lock are private',
      );
      const kept: readonly string[] = KEPT_IN_DATA_DIR;
      assert.deepEqual(
        fs.readdirSync(dir).filter((name) => !kept.includes(name)),
        [],
        'everything the server writes there is what makePrivate is told it keeps',
      );
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.equal(fs.existsSync(path.join(dir, 'service.lock')), false, 'the data folder is released');
      assert.deepEqual(notPrivate(dir), [], 'and what the stop wrote');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
