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

  it('needs TLS certificate and key together', () => {
    assert.throws(() => loadConfig({ TLS_CERT_FILE: '/tmp/cert.pem' }), /TLS_CERT_FILE and TLS_KEY_FILE/);
  });

  it('parses lists and treats empty values as unset', () => {
    const c = loadConfig({ TRUSTED_PROXIES: '10.0.0.1, 10.0.0.0/8,', REDIS_URL: '', HTTP_PORT: '8080' });
    assert.deepEqual(c.trustedProxies, ['10.0.0.1', '10.0.0.0/8']);
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.httpPort, 8080);
  });
});
