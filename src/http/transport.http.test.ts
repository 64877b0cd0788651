import assert from 'node:assert/strict';
import type http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { createPlainListener } from '../server.ts';
import { loopbackConnector, newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { STRICT_TRANSPORT_SECURITY } from './tls.ts';

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

describe('HTTPS only', () => {
  let t: TestApp;
  let key: string;
  let plain: http.Server;
  let plainUrl: string;
  before(async () => {
    // 127.0.0.2 is the TLS proxy we trust; 127.0.0.1 is just a client.
    t = await startTestApp({ trustedProxies: ['127.0.0.2'] });
    key = (await newCustomer(t)).key;
    plain = createPlainListener(t.app);
    plainUrl = await listen(plain);
  });
  after(async () => {
    plain.close();
    await t.close();
  });

  it('the API answers over TLS 1.2 or newer, with HSTS', async () => {
    const res = await t.request('GET', '/api/v1/auth/whoami', { key });
    assert.equal(res.status, 200);
    assert.equal(res.headers['strict-transport-security'], STRICT_TRANSPORT_SECURITY);
  });

  it('a plain-HTTP request to the plain listener gets 403 transport.insecure and is never served', async () => {
    const { key, keyId } = await newCustomer(t);
    const res = await request(`${plainUrl}/api/v1/auth/whoami`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = (await res.body.json()) as { code: string; request_id: string };
    assert.equal(res.statusCode, 403);
    assert.equal(body.code, 'transport.insecure');
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(res.headers['x-request-id'], body.request_id);
    assert.ok(res.headers['x-ratelimit-limit']);
    assert.equal(res.headers['strict-transport-security'], undefined, 'HSTS is never sent over plain HTTP');
    const used = await t.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', keyId) // not by prefix: prefixes are not unique, and the suite makes thousands of keys
      .executeTakeFirst();
    assert.equal(used?.last_used_at ?? null, null, 'the key was never even looked up');
  });

  it('X-Forwarded-Proto is ignored from an untrusted address', async () => {
    const res = await request(`${plainUrl}/api/v1/auth/whoami`, {
      headers: { authorization: `Bearer ${key}`, 'x-forwarded-proto': 'https' },
    });
    await res.body.dump();
    assert.equal(res.statusCode, 403);
  });

  it('a trusted TLS-terminating proxy with X-Forwarded-Proto: https is served', async () => {
    const viaProxy = new Agent({ connect: loopbackConnector(t.cert, '127.0.0.2') });
    try {
      const res = await request(`${plainUrl}/api/v1/auth/whoami`, {
        headers: {
          authorization: `Bearer ${key}`,
          'x-forwarded-proto': 'https',
          'x-forwarded-for': '203.0.113.9',
        },
        dispatcher: viaProxy,
      });
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(
        res.headers['strict-transport-security'],
        STRICT_TRANSPORT_SECURITY,
        'the client saw HTTPS',
      );
      const refused = await request(`${plainUrl}/api/v1/auth/whoami`, {
        headers: { authorization: `Bearer ${key}`, 'x-forwarded-proto': 'http' },
        dispatcher: viaProxy,
      });
      await refused.body.dump();
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.headers['strict-transport-security'], undefined);
    } finally {
      await viaProxy.close();
    }
  });

  it('a request the HTTP parser refuses on the plain listener is a problem too, without HSTS', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(plainUrl).port), '127.0.0.1', () => {
        socket.end('GET /api/v1/auth/whoami HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n');
      });
      let data = '';
      socket.on('data', (d) => {
        data += d.toString('latin1');
      });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = reply.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 400 /);
    assert.match(head, /content-type: application\/problem\+json; charset=utf-8/);
    assert.doesNotMatch(head, /strict-transport-security/i);
    const problem = JSON.parse(body) as { code: string; request_id: string };
    assert.equal(problem.code, 'input.malformed');
    assert.match(head, new RegExp(`x-request-id: ${problem.request_id}`));
  });

  it('CONNECT and a request without Host on the plain listener are problems too, without HSTS', async () => {
    const exchange = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(plainUrl).port), '127.0.0.1', () => socket.write(request));
        let data = '';
        socket.on('data', (d) => {
          data += d.toString('latin1');
        });
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
    for (const [request, status, code] of [
      ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, 'route.method_not_allowed'],
      ['GET /api/v1/auth/whoami HTTP/1.1\r\nConnection: close\r\n\r\n', 403, 'transport.insecure'],
    ] as const) {
      const [head = '', body = ''] = (await exchange(request)).split('\r\n\r\n');
      assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `));
      assert.doesNotMatch(head, /strict-transport-security/i);
      const problem = JSON.parse(body) as { code: string; request_id: string };
      assert.equal(problem.code, code);
      assert.match(head, new RegExp(`x-request-id: ${problem.request_id}`));
    }
  });

  it('plain HTTP sent to the TLS port gets no HTTP response at all', async () => {
    const port = new URL(t.url).port;
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET /api/v1/auth/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      });
      let data = '';
      socket.on('data', (d) => {
        data += d.toString('latin1');
      });
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
      socket.setTimeout(3000, () => socket.destroy());
    });
    assert.ok(!reply.includes('HTTP/1.1 200'), 'never served');
    assert.ok(!reply.includes('customer_id'));
  });
});
