import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

// `calls` commands end to end on a throw-away embedded database, as an operator would run them.
describe('operator CLI: calls', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vca-calls-cli-'));
  const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' };
  const cli = (...args: string[]) => {
    const res = spawnSync(process.execPath, ['src/main.ts', ...args], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: res.status, stdout: res.stdout, stderr: res.stderr, json: () => JSON.parse(res.stdout) };
  };

  it('simulates finished inbound calls and shows and rotates the callback secret', () => {
    const customer = cli('customers', 'create', '--name', 'Calls CLI', '--json').json();
    const assistant = cli(
      'assistants',
      'create',
      '--customer',
      customer.id,
      '--name',
      'Front desk',
      '--voice',
      'aria',
      '--phone-numbers',
      '+14155550101',
      '--json',
    ).json();
    const made = cli('calls', 'simulate-inbound', '--customer', customer.id, '--count', '3', '--json');
    assert.equal(made.status, 0, made.stderr);
    const calls = made.json();
    assert.equal(calls.length, 3);
    for (const call of calls) {
      assert.equal(call.assistant_id, assistant.id);
      assert.ok(['completed', 'canceled'].includes(call.status), call.status);
      assert.ok(new Date(call.started_at) < new Date(), 'in the past');
    }

    const shown = cli('calls', 'callback-secret', customer.id, '--json').json();
    assert.match(shown.secret, /^whsec_/);
    assert.equal(shown.version, 1);
    const rotated = cli('calls', 'callback-secret', customer.id, '--rotate', '--json').json();
    assert.equal(rotated.version, 2);
    assert.notEqual(rotated.secret, shown.secret);

    const bad = cli('calls', 'simulate-inbound', '--customer', customer.id, '--count', '0');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /input\.invalid/);
  });
});
