import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliOnFreshFolder } from '../testing/cli.ts';

// The operator CLI end to end, as a script would use it: --json output and exit codes.
describe('operator CLI', () => {
  const cli = cliOnFreshFolder('vca-cli-');

  it('creates a customer, keys, and manages their life cycle', () => {
    const customer = cli('customers', 'create', '--name', 'Acme', '--rate-limit', '120', '--json').json();
    assert.equal(customer.name, 'Acme');
    assert.equal(customer.rate_limit_per_minute, 120);

    const created = cli(
      'keys',
      'create',
      '--customer',
      customer.id,
      '--name',
      'zapier',
      '--preset',
      'automation',
      '--spend-cap',
      '25.50',
      '--countries',
      'US,GB',
      '--json',
    ).json();
    assert.match(created.secret, /^svc_live_[0-9A-Za-z]{36}$/);
    assert.deepEqual(created.scopes, ['read_assistants', 'read_calls', 'manage_webhooks']);
    assert.equal(created.daily_spend_cap_usd, '25.50');
    assert.deepEqual(created.allowed_countries, ['US', 'GB']);
    assert.equal(created.prefix, created.secret.slice(0, 12));

    const listed = cli('keys', 'list', '--prefix', created.prefix, '--json').json();
    assert.equal(listed.length, 1);
    assert.equal(listed[0].id, created.id);
    assert.equal(JSON.stringify(listed).includes(created.secret), false, 'a listing never shows the key');

    const scoped = cli(
      'keys',
      'scopes',
      created.id,
      '--scopes',
      'read_calls,outbound_calls',
      '--json',
    ).json();
    assert.deepEqual(scoped.scopes, ['read_calls', 'outbound_calls']);

    const rotated = cli('keys', 'rotate', created.id, '--json').json();
    assert.equal(rotated.id, created.id);
    assert.notEqual(rotated.secret, created.secret);
    assert.ok(Date.parse(rotated.previous_valid_until) > Date.now());

    const revoked = cli('keys', 'revoke', created.id, '--json').json();
    assert.equal(revoked.status, 'revoked');

    const assistant = cli(
      'assistants',
      'create',
      '--customer',
      customer.id,
      '--name',
      'Desk',
      '--voice',
      'aria',
      '--phone-numbers',
      '+14155550100',
      '--json',
    ).json();
    assert.deepEqual(assistant.phone_numbers, ['+14155550100']);
  });

  it('links an assistant to an ElevenLabs agent, one of its own numbers only', () => {
    const customer = cli('customers', 'create', '--name', 'Linked', '--json').json();
    const assistant = cli(
      'assistants',
      'create',
      '--customer',
      customer.id,
      '--name',
      'Desk',
      '--voice',
      'aria',
      '--phone-numbers',
      '+14155550100,+14155550101',
      '--json',
    ).json();
    const linked = cli(
      'assistants',
      'link',
      assistant.id,
      '--agent-id',
      'agent_123',
      '--phone-number-id',
      '+14155550100=phnum_a,+14155550101=phnum_b:sip_trunk',
      '--json',
    ).json();
    assert.deepEqual(linked, {
      assistantId: assistant.id,
      agentId: 'agent_123',
      phoneNumbers: {
        '+14155550100': { id: 'phnum_a', telephony: 'twilio' },
        '+14155550101': { id: 'phnum_b', telephony: 'sip_trunk' },
      },
    });
    const foreign = cli(
      'assistants',
      'link',
      assistant.id,
      '--agent-id',
      'agent_123',
      '--phone-number-id',
      '+14155550999=phnum_c',
    );
    assert.equal(foreign.status, 1, foreign.stderr);
    assert.match(foreign.stderr, /not one of the assistant's numbers/);
  });

  it('reports bad input with exit code 1 and every issue, and usage errors with 2', () => {
    const customer = cli('customers', 'create', '--name', 'Beta', '--json').json();
    const bad = cli(
      'keys',
      'create',
      '--customer',
      customer.id,
      '--name',
      'x',
      '--scopes',
      'send_sms,admin',
      '--countries',
      'XX',
    );
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /input\.invalid/);
    assert.match(bad.stderr, /send_sms/);
    assert.match(bad.stderr, /admin/);
    assert.match(bad.stderr, /XX/);
    assert.equal(cli('keys', 'create').status, 2, 'missing required options');
    assert.equal(cli('no-such-command').status, 2);
    assert.equal(cli('keys', 'revoke', '00000000-0000-4000-8000-000000000000').status, 1);
  });
});
