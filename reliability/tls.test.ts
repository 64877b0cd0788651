import assert from 'node:assert/strict';
import type http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type SecureVersion, connect as tlsConnect } from 'node:tls';
import { request } from 'undici';
import { createPlainListener } from '../src/server.ts';
import { newCustomer, startTestApp, type TestApp } from '../src/testing/test-app.ts';
import { figure, rememberSecret, saveLogs } from './lib/collector.ts';
import { problemDefect } from './lib/problem.ts';

const SECTION = 'Security: TLS';

/** Handshakes with exactly one protocol version; resolves to the negotiated version or the error. */
function handshake(url: string, ca: string, version: SecureVersion): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: hostname,
      port: Number(port),
      ca,
      servername: 'localhost',
      minVersion: version,
      maxVersion: version,
      // Let this client offer the old versions at all (OpenSSL refuses them at its default level).
      ciphers: 'DEFAULT@SECLEVEL=0',
    });
    socket.once('secureConnect', () => {
      resolve(socket.getProtocol() ?? 'unknown');
      socket.destroy();
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve(`refused (${error.code ?? error.message})`),
    );
    socket.setTimeout(5_000, () => {
      socket.destroy();
      resolve('timeout');
    });
  });
}

describe('TLS 1.2 minimum, and no plain HTTP', () => {
  let t: TestApp;
  let key: string;
  let plain: http.Server;
  let plainUrl = '';
  before(async () => {
    t = await startTestApp();
    key = (await newCustomer(t)).key;
    rememberSecret('api_key', key);
    plain = createPlainListener(t.app);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    plainUrl = `http://127.0.0.1:${(plain.address() as net.AddressInfo).port}`;
  });
  after(async () => {
    plain.close();
    saveLogs('tls-testapp', t.logs);
    await t.close();
  });

  it('TLS 1.0 and 1.1 are refused; 1.2 and 1.3 are negotiated', async () => {
    const results: Record<string, string> = {};
    for (const v of ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as SecureVersion[])
      results[v] = await handshake(t.url, t.cert, v);
    for (const [v, r] of Object.entries(results))
      figure({ section: SECTION, name: `handshake offering only ${v}`, value: r });
    assert.match(results.TLSv1 ?? '', /^refused/);
    assert.match(results['TLSv1.1'] ?? '', /^refused/);
    assert.equal(results['TLSv1.2'], 'TLSv1.2');
    assert.equal(results['TLSv1.3'], 'TLSv1.3');
    figure({
      section: SECTION,
      name: 'minimum version',
      value: 'TLSv1.2',
      bound: '1.0/1.1 refused',
      ok: /^refused/.test(results.TLSv1 ?? '') && /^refused/.test(results['TLSv1.1'] ?? ''),
    });
  });

  it('plain HTTP: the TLS port never answers it; the plain listener answers 403 transport.insecure', async () => {
    const port = Number(new URL(t.url).port);
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(`GET /api/v1/auth/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`),
      );
      let data = '';
      socket.on('data', (d: Buffer) => {
        data += d.toString('latin1');
      });
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
      socket.setTimeout(3_000, () => socket.destroy());
    });
    assert.ok(!/^HTTP\/1\.1 2/.test(reply), 'never served over plain HTTP on the TLS port');
    assert.ok(!reply.includes('customer_id'));
    const res = await request(`${plainUrl}/api/v1/auth/whoami`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await res.body.text();
    const flat = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
    const answer = { status: res.statusCode, headers: flat, text, body: JSON.parse(text) as unknown };
    assert.equal(res.statusCode, 403);
    assert.equal((answer.body as { code: string }).code, 'transport.insecure');
    assert.equal(problemDefect(answer), null);
    figure({
      section: SECTION,
      name: 'plain HTTP to the TLS port',
      value: reply ? 'TLS alert / closed' : 'closed, no answer',
      ok: true,
    });
    figure({ section: SECTION, name: 'plain HTTP listener', value: '403 transport.insecure', ok: true });
  });
});
