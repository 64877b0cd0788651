import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DashboardClient, signedIn } from '../testing/dashboard.fixtures.ts';
import { newCustomer, startTestApp, type TestApp, type TestCustomer } from '../testing/test-app.ts';

/** The settings page: the account's retention of calls and transcript redaction, as a browser without script uses it. */
describe('dashboard settings', () => {
  let t: TestApp;
  let c: TestCustomer;
  let client: DashboardClient;

  before(async () => {
    t = await startTestApp({ callRetention: { defaultDays: 90, minDays: 7, maxDays: 365 } });
    c = await newCustomer(t);
    ({ client } = await signedIn(t, c.customerId));
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  const settings = () => t.services.customers.callDataSettings(c.customerId);

  it('shows the default period, the bounds and the redaction switch; Settings is in the navigation', async () => {
    const page = await client.get('/dashboard/settings');
    assert.equal(page.status, 200);
    assert.match(page.text, /<a href="\/dashboard\/settings" aria-current="page">Settings<\/a>/);
    assert.match(page.text, /Your calls are kept <strong>90 days<\/strong> \(the service default\)/);
    assert.match(page.text, /id="retention-default" name="retention" value="default" checked/);
    assert.match(page.text, /From 7 to 365 days, the longest this service keeps calls/);
    assert.doesNotMatch(page.text, /retention-forever/, 'no "for ever" under a longest');
    assert.match(page.text, /id="redact_transcripts" name="redact_transcripts" value="on" aria/);
  });

  it('saves a number of days and redaction; back to the default; refuses what the bounds do not allow', async () => {
    await client.get('/dashboard/settings');
    let res = await client.post('/dashboard/settings', {
      _csrf: client.csrf(),
      retention: 'days',
      retention_days: '30',
      redact_transcripts: 'on',
    });
    assert.equal(res.status, 303, res.text);
    assert.equal(res.headers.location, '/dashboard/settings');
    assert.deepEqual(
      [(await settings()).call_retention_days, (await settings()).redact_transcripts],
      [30, true],
    );
    let page = await client.get('/dashboard/settings');
    assert.match(page.text, /Settings saved\./);
    assert.match(page.text, /kept <strong>30 days<\/strong>\. A call/);
    assert.match(page.text, /name="retention_days" inputmode="numeric" pattern="[^"]+" value="30"/);
    assert.match(page.text, /value="on" checked/);

    for (const days of ['3', '400', 'soon']) {
      res = await client.post('/dashboard/settings', {
        _csrf: client.csrf(),
        retention: 'days',
        retention_days: days,
      });
      assert.equal(res.status, 422, days);
      assert.match(res.text, /Give a whole number of days/);
      assert.match(res.text, new RegExp(`value="${days}"`), 'the form shows what was typed');
    }
    assert.equal((await settings()).call_retention_days, 30, 'unchanged');

    page = await client.get('/dashboard/settings');
    res = await client.post('/dashboard/settings', {
      _csrf: client.csrf(),
      retention: 'default',
      retention_days: '',
    });
    assert.equal(res.status, 303);
    assert.deepEqual(
      [(await settings()).call_retention_is_default, (await settings()).redact_transcripts],
      [true, false],
      'an unchecked box turns redaction off',
    );
  });

  it('refuses a post without the session token', async () => {
    const res = await client.post('/dashboard/settings', { retention: 'days', retention_days: '8' });
    assert.equal(res.status, 403);
    assert.notEqual((await settings()).call_retention_days, 8);
  });

  it('offers "for ever" where no longest is set', async () => {
    const open = await startTestApp();
    const other = await newCustomer(open);
    const { client: browser } = await signedIn(open, other.customerId);
    try {
      const page = await browser.get('/dashboard/settings');
      assert.match(page.text, /kept <strong>for ever<\/strong> \(the service default\)/);
      assert.match(page.text, /id="retention-forever"/);
      const res = await browser.post('/dashboard/settings', {
        _csrf: browser.csrf(),
        retention: 'forever',
        retention_days: '',
      });
      assert.equal(res.status, 303);
      const chosen = await open.services.customers.callDataSettings(other.customerId);
      assert.deepEqual([chosen.call_retention_days, chosen.call_retention_is_default], [null, false]);
    } finally {
      await browser.close();
      await open.close();
    }
  });
});
