import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliOnFreshFolder } from '../testing/cli.ts';

// The operator's side of a customer's call data settings, as a script runs it: --json, sentences, exit codes.
describe('operator CLI: customers set-retention and set-redaction', () => {
  const cli = cliOnFreshFolder('vca-cli-retention-').with({
    CALL_RETENTION_DAYS_DEFAULT: '90',
    CALL_RETENTION_DAYS_MIN: '7',
    CALL_RETENTION_DAYS_MAX: '365',
  });

  it('sets a period within the bounds, back to the default, and transcript redaction', () => {
    const customer = cli('customers', 'create', '--name', 'Clinic', '--json').json();
    const set = cli('customers', 'set-retention', customer.id, '--days', '30', '--json').json();
    assert.equal(set.call_retention_days, 30);
    assert.equal(set.call_retention_is_default, false);

    const human = cli('customers', 'set-redaction', customer.id, '--transcripts', 'on');
    assert.equal(human.status, 0, human.stderr);
    assert.equal(human.stdout.trim(), `Customer ${customer.id}: calls kept 30 days, transcripts redacted`);

    const back = cli('customers', 'set-retention', customer.id, '--days', 'default');
    assert.equal(
      back.stdout.trim(),
      `Customer ${customer.id}: calls kept 90 days (default), transcripts redacted`,
    );

    const outside = cli('customers', 'set-retention', customer.id, '--days', '400', '--json');
    assert.equal(outside.status, 1);
    assert.equal(outside.json().error.code, 'input.invalid');
    const forever = cli('customers', 'set-retention', customer.id, '--days', 'forever');
    assert.equal(forever.status, 1);
    assert.match(forever.stderr, /at most 365 days/);
    const word = cli('customers', 'set-redaction', customer.id, '--transcripts', 'yes');
    assert.equal(word.status, 1);
    assert.match(word.stderr, /"on" or "off"/);
  });

  it('refuses a default outside the bounds at start, naming the variable', () => {
    const bounded = cliOnFreshFolder('vca-cli-retention-bad-').with({ CALL_RETENTION_DAYS_MAX: '365' });
    const res = bounded('customers', 'list');
    assert.equal(res.status, 1);
    assert.match(res.stderr, /CALL_RETENTION_DAYS_DEFAULT: must be at most CALL_RETENTION_DAYS_MAX \(365\)/);
  });
});
