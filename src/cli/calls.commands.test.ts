import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { MAX_SIMULATED_CALLS } from '../demo/simulate-inbound.ts';
import { cliOnFreshFolder } from '../testing/cli.ts';

// `calls` commands end to end on a throw-away embedded database, as an operator would run them.
describe('operator CLI: calls', () => {
  const cli = cliOnFreshFolder('vca-calls-cli-');

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

  it("exports a customer's calls to a file, with the filters of GET /calls, as CSV or NDJSON", () => {
    const customer = cli('customers', 'create', '--name', 'Export CLI', '--json').json();
    cli(
      'assistants',
      'create',
      '--customer',
      customer.id,
      '--name',
      'Desk',
      '--voice',
      'aria',
      '--phone-numbers',
      '+14155550105',
      '--json',
    );
    assert.equal(cli('calls', 'simulate-inbound', '--customer', customer.id, '--count', '12').status, 0);
    const all = cli(
      'calls',
      'export',
      '--customer',
      customer.id,
      '--out',
      path.join(cli.dir, 'calls.csv'),
      '--include',
      'transcript',
      '--json',
    );
    assert.equal(all.status, 0, all.stderr);
    assert.equal(all.json().calls, 12);
    const records: Record<string, string>[] = parse(
      fs.readFileSync(path.join(cli.dir, 'calls.csv'), 'utf8'),
      {
        columns: true,
      },
    );
    assert.equal(records.length, 12);
    assert.ok(records.every((r) => r.transcript !== undefined));
    const completed = cli(
      'calls',
      'export',
      '--customer',
      customer.id,
      '--out',
      path.join(cli.dir, 'done.ndjson'),
      '--format',
      'ndjson',
      '--filters',
      'status=completed',
      '--json',
    ).json();
    const lines = fs.readFileSync(path.join(cli.dir, 'done.ndjson'), 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, completed.calls);
    assert.ok(lines.every((l) => JSON.parse(l).status === 'completed'));
    const bad = cli(
      'calls',
      'export',
      '--customer',
      customer.id,
      '--out',
      path.join(cli.dir, 'x.csv'),
      '--filters',
      'status=lost',
    );
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /input\.invalid/);
  });

  it('states the simulator limit in its help (written out there, to keep the demo module off start-up)', () => {
    const help = cli('calls', 'simulate-inbound', '--help');
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, new RegExp(`how many calls, 1 to ${MAX_SIMULATED_CALLS}\\b`));
  });
});
