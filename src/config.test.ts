import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration', () => {
  it('has working defaults: embedded database, memory limits, port 8443', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8443);
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.equal(c.rateLimitPerMinute, 60);
    assert.equal(c.keyRateLimitPerMinute, 60);
    assert.equal(c.keyRotationGraceSeconds, 86_400);
    assert.equal(c.httpPort, undefined);
    assert.equal(c.reconcileIntervalSeconds, 60, 'calls not ended are checked every minute');
    assert.equal(c.webhookBacklogWarnSeconds, 60, 'an outbox a minute behind is reported');
  });

  it('names each setting after its variable in camel case, with the values the schema gives', () => {
    const c = loadConfig({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      AUTH_FAILURES_PER_MINUTE_PER_PREFIX: '7',
      DEMO_INBOUND_CALLS_PER_MINUTE: '3',
      BASE_URL: 'https://api.example.com//',
      HTTP_PORT: '0',
      LOG_LEVEL: 'debug',
    });
    assert.equal(c.webhookAllowPrivateTargets, true);
    assert.equal(c.authFailuresPerMinutePerPrefix, 7);
    assert.equal(c.demoInboundCallsPerMinute, 3);
    assert.equal(c.baseUrl, 'https://api.example.com');
    assert.equal(c.httpPort, undefined, 'port 0 is no plain listener');
    assert.equal(c.logLevel, 'debug');
    assert.equal(loadConfig({}).logLevel, undefined, 'each entry point has its own default');
  });

  it('lists every wrong value, each naming its variable', () => {
    assert.throws(
      () =>
        loadConfig({
          PORT: 'eighty',
          DATABASE_URL: 'mysql://x',
          RATE_LIMIT_PER_MINUTE: '601',
          KEY_ROTATION_GRACE_SECONDS: '-1',
          SERVER_SECRET: 'short',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        for (const name of [
          'PORT',
          'DATABASE_URL',
          'RATE_LIMIT_PER_MINUTE',
          'KEY_ROTATION_GRACE_SECONDS',
          'SERVER_SECRET',
        ]) {
          assert.match(error.message, new RegExp(`^  ${name}: `, 'm'), name);
        }
        return true;
      },
    );
  });

  it('DATABASE_URL needs SERVER_SECRET, saying how to make one and where an earlier one is; PGlite needs none', () => {
    const secret = 'a-server-secret-of-32-characters-or-more';
    assert.equal(loadConfig({}).serverSecret, undefined, 'embedded: generated into DATA_DIR');
    assert.equal(loadConfig({ DATA_DIR: '/srv/vca' }).serverSecret, undefined);
    const pg = loadConfig({ DATABASE_URL: 'postgres://u@h/db', SERVER_SECRET: secret });
    assert.equal(pg.serverSecret, secret);
    for (const env of [
      { DATABASE_URL: 'postgres://u@h/db', DATA_DIR: '/srv/vca' },
      { DATABASE_URL: 'postgres://u@h/db', DATA_DIR: '/srv/vca', SERVER_SECRET: '' },
    ]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /^ {2}SERVER_SECRET: required with DATABASE_URL/m);
          assert.match(error.message, /openssl rand -base64 32/, 'how to make one');
          assert.match(error.message, /\/srv\/vca\/server-secret/, 'where an earlier generated one is');
          return true;
        },
        JSON.stringify(env),
      );
    }
  });

  it('PROVIDER=elevenlabs needs its API key and webhook secret, each named; the simulator needs neither', () => {
    assert.equal(loadConfig({}).provider, 'simulator');
    assert.equal(loadConfig({ ELEVENLABS_API_KEY: 'k' }).provider, 'simulator');
    assert.throws(
      () => loadConfig({ PROVIDER: 'elevenlabs' }),
      (error: Error) =>
        /^ {2}ELEVENLABS_API_KEY: required when PROVIDER=elevenlabs$/m.test(error.message) &&
        /^ {2}ELEVENLABS_WEBHOOK_SECRET: required when PROVIDER=elevenlabs$/m.test(error.message),
    );
    assert.throws(
      () => loadConfig({ PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'k' }),
      /ELEVENLABS_WEBHOOK_SECRET: required/,
    );
    assert.throws(
      () =>
        loadConfig({ PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'k', ELEVENLABS_WEBHOOK_SECRET: 'short' }),
      /ELEVENLABS_WEBHOOK_SECRET: must be at least 16 characters/,
    );
    assert.throws(() => loadConfig({ ELEVENLABS_BASE_URL: 'not a url' }), /ELEVENLABS_BASE_URL/);
    const c = loadConfig({
      PROVIDER: 'elevenlabs',
      ELEVENLABS_API_KEY: 'k',
      ELEVENLABS_WEBHOOK_SECRET: 'wsec_0123456789abcdef',
    });
    assert.equal(c.elevenlabsBaseUrl, 'https://api.elevenlabs.io', 'the public API unless said');
    assert.equal(c.providerTimeoutMs, 10_000);
    assert.equal(
      loadConfig({ ELEVENLABS_BASE_URL: 'http://127.0.0.1:9999/' }).elevenlabsBaseUrl,
      'http://127.0.0.1:9999',
    );
  });

  it('needs TLS certificate and key together', () => {
    assert.throws(() => loadConfig({ TLS_CERT_FILE: '/tmp/cert.pem' }), /TLS_CERT_FILE and TLS_KEY_FILE/);
  });

  it('parses lists and treats empty values as unset', () => {
    const c = loadConfig({ TRUSTED_PROXIES: '10.0.0.1, 10.0.0.0/8,', REDIS_URL: '', HTTP_PORT: '8080' });
    assert.deepEqual(c.trustedProxies, ['10.0.0.1', '10.0.0.0/8']);
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.httpPort, 8080);
  });

  it('bounds customers without limits of their own to US and CA and 100.00 a day, unless the operator says', () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.outboundCountriesDefault, ['US', 'CA']);
    assert.equal(defaults.outboundMaxDailyCapDefault, '100.00');
    const c = loadConfig({
      OUTBOUND_COUNTRIES_DEFAULT: 'us, ca,GB,+882',
      OUTBOUND_MAX_DAILY_CAP_DEFAULT: '250.5',
    });
    assert.deepEqual(c.outboundCountriesDefault, ['US', 'CA', 'GB', '+882']);
    assert.equal(c.outboundMaxDailyCapDefault, '250.50');
  });

  for (const [name, value] of [
    ['OUTBOUND_COUNTRIES_DEFAULT', 'US,XX'],
    ['OUTBOUND_COUNTRIES_DEFAULT', 'US,+1'],
    ['OUTBOUND_COUNTRIES_DEFAULT', 'USA'],
    ['OUTBOUND_MAX_DAILY_CAP_DEFAULT', '12.345'],
    ['OUTBOUND_MAX_DAILY_CAP_DEFAULT', '-5'],
    ['OUTBOUND_MAX_DAILY_CAP_DEFAULT', 'lots'],
  ] as const) {
    it(`refuses ${name}=${value}, naming it`, () => {
      assert.throws(() => loadConfig({ [name]: value }), new RegExp(`^  ${name}: `, 'm'));
    });
  }

  it('keeps calls for ever by default; a retention default must be a period customers could choose', () => {
    const c = loadConfig({});
    assert.deepEqual(
      [c.callRetentionDaysDefault, c.callRetentionDaysMin, c.callRetentionDaysMax],
      [0, 1, 0],
      'unset: for ever, any choice from a day',
    );
    const bounded = loadConfig({
      CALL_RETENTION_DAYS_DEFAULT: '90',
      CALL_RETENTION_DAYS_MIN: '7',
      CALL_RETENTION_DAYS_MAX: '365',
    });
    assert.deepEqual([bounded.callRetentionDaysDefault, bounded.callRetentionDaysMax], [90, 365]);
    for (const [env, name] of [
      [{ CALL_RETENTION_DAYS_DEFAULT: '3', CALL_RETENTION_DAYS_MIN: '7' }, 'CALL_RETENTION_DAYS_DEFAULT'],
      [{ CALL_RETENTION_DAYS_DEFAULT: '400', CALL_RETENTION_DAYS_MAX: '365' }, 'CALL_RETENTION_DAYS_DEFAULT'],
      [{ CALL_RETENTION_DAYS_MAX: '365' }, 'CALL_RETENTION_DAYS_DEFAULT'],
      [{ CALL_RETENTION_DAYS_MIN: '30', CALL_RETENTION_DAYS_MAX: '7' }, 'CALL_RETENTION_DAYS_MAX'],
      [{ CALL_RETENTION_DAYS_MIN: '0' }, 'CALL_RETENTION_DAYS_MIN'],
      [{ CALL_RETENTION_DAYS_DEFAULT: 'a month' }, 'CALL_RETENTION_DAYS_DEFAULT'],
    ] as const) {
      assert.throws(() => loadConfig(env), new RegExp(`^  ${name}: `, 'm'), JSON.stringify(env));
    }
  });
});
