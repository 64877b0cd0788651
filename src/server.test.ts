import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Agent, request } from 'undici';

describe('npm start (serve) on the embedded default', () => {
  it('prints the URL and a working demo key, serves HTTPS, and shuts down cleanly on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vca-serve-'));
    const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
      env: { ...process.env, DATA_DIR: dir, PORT: '0', DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' },
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
      await agent.close();
      assert.ok(fs.existsSync(path.join(dir, 'service.lock')));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.equal(fs.existsSync(path.join(dir, 'service.lock')), false, 'the data folder is released');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
