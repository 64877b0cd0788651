import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { type FakeElevenLabs, startFakeElevenLabs } from '../testing/fake-elevenlabs.ts';

const run = promisify(execFile);
const API_KEY = 'xi-cli-key';

/**
 * The operator's commands for ElevenLabs as a script runs them, against the fake (which answers from this process,
 * so the CLI runs alongside rather than blocking it): `assistants link` checks with ElevenLabs, `assistants list`
 * shows what is linked, `provider check` finds what went wrong since.
 */
describe('assistants link, assistants list and provider check against ElevenLabs', () => {
  let fake: FakeElevenLabs;
  let dir = '';
  before(async () => {
    fake = await startFakeElevenLabs({ apiKey: API_KEY });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'provider-cli-'));
  });
  after(async () => {
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => cliWith({}, args);
  async function cliWith(env: NodeJS.ProcessEnv, args: string[]) {
    try {
      const { stdout, stderr } = await run(process.execPath, ['src/main.ts', ...args], {
        env: {
          ...process.env,
          DATA_DIR: dir,
          DATABASE_URL: '',
          REDIS_URL: '',
          LOG_LEVEL: 'silent',
          PROVIDER: 'elevenlabs',
          ELEVENLABS_API_KEY: API_KEY,
          ELEVENLABS_WEBHOOK_SECRET: 'wsec_cli0123456789abcdef',
          ELEVENLABS_BASE_URL: fake.baseUrl,
          ...env,
        },
        timeout: 120_000,
      });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code?: number; stdout: string; stderr: string };
      return { status: e.code ?? -1, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it('links only what ElevenLabs confirms, lists it, and checks it again later', async () => {
    fake.addAgent('agent_desk1');
    fake.addNumber('phnum_desk1', '+14155550100', { agentId: 'agent_desk1', provider: 'twilio' });
    fake.addNumber('phnum_desk2', '+14155550101', { agentId: 'agent_desk1', provider: 'sip_trunk' });
    const customer = JSON.parse((await cli('customers', 'create', '--name', 'Linked', '--json')).stdout);
    const newAssistant = async (name: string, numbers: string) =>
      JSON.parse(
        (
          await cli(
            'assistants',
            'create',
            '--customer',
            customer.id,
            '--name',
            name,
            '--voice',
            'aria',
            '--phone-numbers',
            numbers,
            '--json',
          )
        ).stdout,
      );
    const assistant = await newAssistant('Desk', '+14155550100,+14155550101');
    await newAssistant('Spare', '+14155550109');

    const placeholder = await cli(
      'assistants',
      'link',
      assistant.id,
      '--agent-id',
      'agent_…',
      '--phone-number-id',
      '+14155550100=phnum_…',
    );
    assert.equal(placeholder.status, 1, placeholder.stderr);
    assert.match(placeholder.stderr, /"agent_…" is a placeholder, not an agent id/);
    assert.match(placeholder.stderr, /"phnum_…" \(for \+14155550100\) is a placeholder/);

    const wrongKind = await cli(
      'assistants',
      'link',
      assistant.id,
      '--agent-id',
      'agent_desk1',
      '--phone-number-id',
      '+14155550101=phnum_desk2',
    );
    assert.equal(wrongKind.status, 1);
    assert.match(
      wrongKind.stderr,
      /phnum_desk2 is a sip_trunk number in ElevenLabs, not twilio: add :sip_trunk/,
    );

    const linked = await cli(
      'assistants',
      'link',
      assistant.id,
      '--agent-id',
      'agent_desk1',
      '--phone-number-id',
      '+14155550100=phnum_desk1,+14155550101=phnum_desk2:sip_trunk',
    );
    assert.equal(linked.status, 0, linked.stderr);
    assert.match(
      linked.stdout,
      /Linked assistant .* to agent agent_desk1 \(2 numbers\), checked with ElevenLabs/,
    );

    const listed = await cli('assistants', 'list', '--customer', customer.id);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${assistant.id}  Desk  agent agent_desk1`));
    assert.match(listed.stdout, /\+14155550100 {2}phnum_desk1 \(twilio\)/);
    assert.match(listed.stdout, /\+14155550101 {2}phnum_desk2 \(sip_trunk\)/);
    assert.match(listed.stdout, /Spare {2}not linked\n {4}\+14155550109 {2}not linked/);
    const json = JSON.parse((await cli('assistants', 'list', '--customer', customer.id, '--json')).stdout);
    assert.equal(json.length, 2);

    const good = await cli('provider', 'check');
    assert.equal(good.status, 0, good.stdout + good.stderr);
    assert.match(good.stdout, /✓ API key: ElevenLabs answers at/);
    assert.match(good.stdout, /✓ webhook secret: well formed/);
    assert.match(good.stdout, new RegExp(`✓ assistant ${assistant.id} → agent agent_desk1`));
    assert.match(good.stdout, /All is well\./);

    // Someone moves a number to another agent in ElevenLabs' dashboard.
    fake.addAgent('agent_other');
    fake.addNumber('phnum_desk1', '+14155550100', { agentId: 'agent_other', provider: 'twilio' });
    const moved = await cli('provider', 'check');
    assert.equal(moved.status, 1);
    assert.match(
      moved.stdout,
      /✗ assistant .* → agent agent_desk1:\n {4}Phone number phnum_desk1 is assigned to agent agent_other in ElevenLabs, not to agent_desk1\./,
    );
    assert.match(moved.stdout, /1 problem found\./);
  });

  it('provider check names a refused key and a malformed webhook secret', async () => {
    const { stdout, stderr, status } = await cliWith(
      { ELEVENLABS_API_KEY: 'xi-not-the-key', ELEVENLABS_WEBHOOK_SECRET: '"wsec_quoted0123456789"' },
      ['provider', 'check'],
    );
    assert.equal(status, 1, stderr);
    assert.match(
      stdout,
      /✗ API key: ElevenLabs refuses the API key \(ELEVENLABS_API_KEY\).*401 \(invalid_api_key\)/,
    );
    assert.match(stdout, /✗ webhook secret: ELEVENLABS_WEBHOOK_SECRET does not look like/);
    assert.match(stdout, /links: not checked until the key works/);
    assert.doesNotMatch(stdout + stderr, /xi-not-the-key/);
  });
});
