import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { type FakeTwilio, startFakeTwilio } from '../testing/fake-twilio.ts';

const run = promisify(execFile);
const ACCOUNT = `AC${'2'.repeat(32)}`;
const TOKEN = 'twilio-cli-token';

/**
 * The operator's text-message commands as a script runs them: `sms numbers`, `sms send` (as a key, with its checks)
 * and `sms simulate-inbound` on the simulator; `sms numbers` and `provider check` against a fake Twilio.
 */
describe('sms numbers, sms send, sms simulate-inbound and provider check', () => {
  let fake: FakeTwilio;
  let dir = '';
  before(async () => {
    fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sms-cli-'));
  });
  after(async () => {
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
    try {
      const { stdout, stderr } = await run(process.execPath, ['src/main.ts', ...args], {
        env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent', ...env },
        timeout: 120_000,
      });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code?: number; stdout: string; stderr: string };
      return { status: e.code ?? -1, stdout: e.stdout, stderr: e.stderr };
    }
  }
  const simulator = (...args: string[]) => cli({}, ...args);
  const twilio = (...args: string[]) =>
    cli(
      {
        SMS_PROVIDER: 'twilio',
        TWILIO_ACCOUNT_SID: ACCOUNT,
        TWILIO_AUTH_TOKEN: TOKEN,
        TWILIO_API_BASE_URL: fake.url,
        PUBLIC_BASE_URL: 'https://sms.example.com',
      },
      ...args,
    );

  it('on the simulator: lists the numbers, sends as a key (its checks apply), takes a simulated reply', async () => {
    const customer = JSON.parse((await simulator('customers', 'create', '--name', 'Texts', '--json')).stdout);
    const assistant = JSON.parse(
      (
        await simulator(
          'assistants',
          'create',
          '--customer',
          customer.id,
          '--name',
          'Desk',
          '--voice',
          'aria',
          '--phone-numbers',
          '+14155557101',
          '--json',
        )
      ).stdout,
    );
    const key = JSON.parse(
      (
        await simulator(
          'keys',
          'create',
          '--customer',
          customer.id,
          '--name',
          'ops',
          '--scopes',
          'send_sms',
          '--json',
        )
      ).stdout,
    );
    const numbers = await simulator('sms', 'numbers');
    assert.match(numbers.stdout, /\+14155557101 {2}can text \(simulator\)/);
    const sent = await simulator(
      'sms',
      'send',
      '--key',
      key.id,
      '--assistant',
      assistant.id,
      '--to',
      '+14155550199',
      '--body',
      'Hello',
      '--json',
    );
    assert.equal(sent.status, 0, sent.stderr);
    assert.deepEqual(
      [JSON.parse(sent.stdout).status, JSON.parse(sent.stdout).from_number],
      ['queued', '+14155557101'],
    );
    const refused = await simulator(
      'sms',
      'send',
      '--key',
      key.id,
      '--assistant',
      assistant.id,
      '--to',
      '+33142685300',
      '--body',
      'Bonjour',
    );
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /outbound\.country_not_allowed/);
    const bad = await simulator(
      'sms',
      'send',
      '--key',
      key.id,
      '--assistant',
      assistant.id,
      '--to',
      '12',
      '--body',
      'x',
    );
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /input\.invalid/);
    const reply = await simulator(
      'sms',
      'simulate-inbound',
      '--to',
      '+14155557101',
      '--body',
      'STOP',
      '--json',
    );
    assert.equal(reply.status, 0, reply.stderr);
    const optedOut = await simulator(
      'sms',
      'send',
      '--key',
      key.id,
      '--assistant',
      assistant.id,
      '--to',
      '+14155550123',
      '--body',
      'Hello again',
    );
    assert.match(optedOut.stderr, /sms\.recipient_opted_out/);
    const nobody = await simulator('sms', 'simulate-inbound', '--to', '+14155550000', '--body', 'hi');
    assert.equal(nobody.status, 1);
    assert.match(nobody.stderr, /No assistant has the number/);
  });

  it("with SMS_PROVIDER=twilio: lists the account's numbers and says which can text; provider check reports it", async () => {
    fake.numbers.push(
      {
        sid: `PN${'a'.repeat(32)}`,
        phone_number: '+14155557201',
        friendly_name: 'Desk',
        capabilities: { sms: true, voice: true },
      },
      {
        sid: `PN${'b'.repeat(32)}`,
        phone_number: '+14155557202',
        friendly_name: 'Voice only',
        capabilities: { sms: false, voice: true },
      },
    );
    const numbers = await twilio('sms', 'numbers');
    assert.equal(numbers.status, 0, numbers.stderr);
    assert.match(numbers.stdout, /\+14155557201 {2}can text {2}Desk/);
    assert.match(numbers.stdout, /\+14155557202 {2}cannot text/);
    const check = await twilio('provider', 'check');
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stdout, /✓ Twilio answers/);
    assert.match(check.stdout, /numbers that can text: \+14155557201$/m);
    const refused = await cli(
      {
        SMS_PROVIDER: 'twilio',
        TWILIO_ACCOUNT_SID: ACCOUNT,
        TWILIO_AUTH_TOKEN: 'wrong-token',
        TWILIO_API_BASE_URL: fake.url,
        PUBLIC_BASE_URL: 'https://sms.example.com',
      },
      'provider',
      'check',
    );
    assert.equal(refused.status, 1);
    assert.match(refused.stdout, /✗ Twilio: unauthorized/);
  });
});
