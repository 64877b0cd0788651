import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cliOnFreshFolder, cliWith } from '../testing/cli.ts';
import { freshSchemaUrl } from '../testing/test-database.ts';

const SECRET_A = 'cli-test-server-secret-a-0123456789abcdef';
const SECRET_B = 'cli-test-server-secret-b-0123456789abcdef';
const MISMATCH = /^The server secret of this process \((.+)\) is not the one this database was set up with/;

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
      'us,CA',
      '--json',
    ).json();
    assert.match(created.secret, /^svc_live_[0-9A-Za-z]{36}$/);
    assert.deepEqual(created.scopes, ['read_assistants', 'read_calls', 'manage_webhooks']);
    assert.equal(created.daily_spend_cap_usd, '25.50');
    assert.deepEqual(created.allowed_countries, ['US', 'CA']);
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

  it("bounds a customer's keys: set-outbound-limits, keys inside and outside, narrowed keys shown", () => {
    const customer = cli('customers', 'create', '--name', 'Bounded', '--json').json();
    assert.deepEqual(
      [
        customer.outbound_countries,
        customer.outbound_max_daily_cap_usd,
        customer.outbound_countries_is_default,
      ],
      [['US', 'CA'], '100.00', true],
    );
    const key = (...options: string[]) =>
      cli(
        'keys',
        'create',
        '--customer',
        customer.id,
        '--name',
        'out',
        '--scopes',
        'outbound_calls',
        ...options,
      );

    // The issue's key: refused, each field named with its bound.
    const refused = key('--countries', 'KP,CU,SO,IR,SY', '--spend-cap', '9999999999.99');
    assert.equal(refused.status, 1);
    assert.match(
      refused.stderr,
      /allowed_countries: KP, CU, SO, IR, SY are outside the countries this customer may call \(US, CA\), set by the operator\./,
    );
    assert.match(
      refused.stderr,
      /daily_spend_cap_usd: Must be at most 100\.00, the largest daily cap the operator allows this customer\./,
    );

    const widened = cli(
      'customers',
      'set-outbound-limits',
      customer.id,
      '--countries',
      'US,CA,gb,+882',
      '--max-daily-cap',
      '200',
      '--json',
    ).json();
    assert.deepEqual(
      [widened.outbound_countries, widened.outbound_max_daily_cap_usd, widened.outbound_countries_is_default],
      [['US', 'CA', 'GB', '+882'], '200.00', false],
    );
    const inside = key('--countries', 'GB,+882', '--spend-cap', '150', '--json');
    assert.equal(inside.status, 0, inside.stderr);
    assert.deepEqual(
      [inside.json().allowed_countries, inside.json().daily_spend_cap_usd],
      [['GB', '+882'], '150.00'],
    );

    const lowered = cli(
      'customers',
      'set-outbound-limits',
      customer.id,
      '--countries',
      'US,CA,GB',
      '--max-daily-cap',
      'default',
    );
    assert.equal(lowered.status, 0, lowered.stderr);
    assert.match(lowered.stdout, /outbound US, CA, GB, keys capped at \$100\.00\/day \(default\)/);
    assert.match(lowered.stdout, /1 active key\(s\) store a wider allowlist or cap/);
    const listed = cli('keys', 'list', '--customer', customer.id).stdout;
    assert.match(
      listed,
      /outbound GB \$100\.00\/day \(stored GB, \+882 \$150\.00\/day: held to the customer's limits\)/,
    );

    const unknown = cli('customers', 'set-outbound-limits', customer.id, '--countries', 'US,XX');
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /outbound_countries: Unknown country code "XX"/);
    assert.equal(cli('customers', 'set-outbound-limits', customer.id).status, 1, 'nothing to set');
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
      checked: false,
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
    assert.doesNotMatch(bad.stderr, /send_sms/, 'send_sms is a scope like the others');
    assert.match(bad.stderr, /admin/);
    assert.match(bad.stderr, /XX/);
    assert.equal(cli('keys', 'create').status, 2, 'missing required options');
    assert.equal(cli('no-such-command').status, 2);
    assert.equal(cli('keys', 'revoke', '00000000-0000-4000-8000-000000000000').status, 1);
  });

  it('refuses a server secret other than the one its database was set up with; adopt records a new one', () => {
    const generated = fs.readFileSync(path.join(cli.dir, 'server-secret'), 'utf8');
    const other = cli.with({ SERVER_SECRET: SECRET_A });
    const refused = other('customers', 'list');
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr.match(MISMATCH)?.[1], 'SERVER_SECRET');
    assert.match(refused.stderr, /npm run cli -- server-secret adopt/);
    const sameSecret = cli.with({ SERVER_SECRET: generated })('customers', 'list', '--json');
    assert.equal(sameSecret.status, 0, 'the generated secret, given as SERVER_SECRET: the same secret');
    assert.deepEqual(other('server-secret', 'adopt', '--json').json(), { outcome: 'adopted' });
    assert.equal(other('customers', 'list').status, 0);
    const byFile = cli('customers', 'list', '--json');
    assert.equal(byFile.status, 1);
    assert.equal(byFile.json().error.code, 'config.server_secret_mismatch');
    assert.match(byFile.json().error.detail, /generated into .+server-secret, as SERVER_SECRET is not set/);
    assert.match(cli('server-secret', 'adopt').stdout, /^Recorded this server secret/);
    assert.match(cli('server-secret', 'adopt').stdout, /nothing changed/);
    assert.equal(cli('customers', 'list').status, 0);
  });

  it('refuses DATABASE_URL without SERVER_SECRET, saying what to set, and a database out of reach in a sentence', () => {
    const closed = 'postgres://postgres@127.0.0.1:1/none';
    const noSecret = cliWith({ DATABASE_URL: closed, SERVER_SECRET: '', LOG_LEVEL: 'silent' })(
      'customers',
      'list',
    );
    assert.equal(noSecret.status, 1);
    assert.match(noSecret.stderr, /^Invalid configuration:\n {2}SERVER_SECRET: required with DATABASE_URL/);
    assert.match(noSecret.stderr, /openssl rand -base64 32/);
    const unreachable = cliWith({ DATABASE_URL: closed, SERVER_SECRET: SECRET_A, LOG_LEVEL: 'silent' })(
      'customers',
      'list',
    );
    assert.equal(unreachable.status, 1);
    assert.equal(
      unreachable.stderr,
      'error: service.unavailable: Cannot reach the database (connect ECONNREFUSED 127.0.0.1:1). Check that ' +
        'PostgreSQL is running and that DATABASE_URL (host, port, database name, user, password) is right.\n',
    );
  });

  it('on PostgreSQL, runs with the SERVER_SECRET the database was set up with, and refuses another', {
    skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL',
  }, async () => {
    const url = await freshSchemaUrl();
    const on = (secret: string) =>
      cliWith({ DATABASE_URL: url ?? '', SERVER_SECRET: secret, LOG_LEVEL: 'silent' });
    const customer = on(SECRET_A)('customers', 'create', '--name', 'Shared', '--json');
    assert.equal(customer.status, 0, customer.stderr);
    const refused = on(SECRET_B)('keys', 'create', '--customer', customer.json().id, '--name', 'x');
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr.match(MISMATCH)?.[1], 'SERVER_SECRET', refused.stderr);
    const key = on(SECRET_A)('keys', 'create', '--customer', customer.json().id, '--name', 'x', '--json');
    assert.equal(key.status, 0, key.stderr);
  });
});
