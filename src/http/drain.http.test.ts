import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { connect, type TLSSocket } from 'node:tls';
import { shutDown } from '../shutdown.ts';
import { captureLogs } from '../testing/log-capture.ts';
import { newCustomer, startTestApp, type TestApp } from '../testing/test-app.ts';
import { SLOW_CLIENT_BOUND_MS } from './drain.ts';

/** A raw connection that records what it receives and when the server closed it. */
function open(t: TestApp, first: string) {
  const { port } = new URL(t.url);
  let received = '';
  const socket: TLSSocket = connect({
    host: '127.0.0.1',
    port: Number(port),
    ca: t.cert,
    servername: 'localhost',
  });
  const ready = new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
  void ready.then(() => socket.write(first));
  socket.on('data', (d: Buffer) => {
    received += d.toString('latin1');
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, ready, closed, received: () => received };
}

describe('stopping with slow and idle clients', () => {
  it('idle connections close at once, slow ones after the bound, a request being answered finishes: the stop fits its grace', async (ctx) => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const t = await startTestApp({
      register: (app) =>
        app.get('/test/slow', async () => {
          entered();
          await gate;
          return { ok: true };
        }),
    });
    const { key } = await newCustomer(t);

    // Keep-alive and idle: one answered request, its connection left open in the client's pool.
    assert.equal((await t.request('GET', '/healthz')).status, 200);
    // Slow clients: a request head never finished, a body never finished (the handler waits for it), a body
    // nobody waits for (answered early without a key), and a TCP connection that never starts TLS.
    const head = open(t, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    const body = open(
      t,
      `POST /api/v1/webhook-subscriptions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    const unread = open(
      t,
      'POST /api/v1/webhook-subscriptions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 100\r\n\r\n{',
    );
    const tcp = net.connect(Number(new URL(t.url).port), '127.0.0.1');
    tcp.on('error', () => {});
    const tcpOpen = new Promise<void>((resolve) => tcp.once('connect', () => resolve()));
    const tcpClosed = new Promise<void>((resolve) => tcp.once('close', () => resolve()));
    // A request head finished only after the stop began: answered, as a problem, not served.
    const late = open(t, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    // Being answered when the stop begins.
    const inFlight = open(t, 'GET /test/slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await Promise.all([head.ready, body.ready, unread.ready, late.ready, inHandler]);
    await tcpOpen;
    while (!unread.received().includes('401')) await new Promise((r) => setImmediate(r));

    const { logger, lines } = captureLogs();
    const exits: number[] = [];
    const started = performance.now();
    const stopped = shutDown([{ name: 'HTTP server', run: () => t.close() }], {
      logger,
      graceMs: 10_000,
      exit: (code) => exits.push(code),
    });
    late.socket.write('\r\n');
    // The slow clients are cut at the bound; only then is the request being answered allowed to finish.
    await Promise.all([head.closed, body.closed, unread.closed, tcpClosed, late.closed]);
    const cutAfter = performance.now() - started;
    assert.equal(inFlight.socket.destroyed, false, 'the request being answered is not cut with them');
    release();
    await inFlight.closed;
    await stopped;
    const took = performance.now() - started;
    ctx.diagnostic(`slow clients cut after ${Math.round(cutAfter)} ms; the stop took ${Math.round(took)} ms`);

    assert.match(inFlight.received(), /^HTTP\/1\.1 200 [\s\S]*\{"ok":true\}$/, 'answered in full');
    assert.match(late.received(), /^HTTP\/1\.1 503 [\s\S]*"code":"service\.unavailable"/, late.received());
    assert.match(late.received(), /x-request-id: [0-9a-f-]{36}/);
    assert.ok(
      cutAfter >= SLOW_CLIENT_BOUND_MS - 50,
      `slow clients had their bound (${Math.round(cutAfter)} ms)`,
    );
    assert.ok(took < SLOW_CLIENT_BOUND_MS + 2_000, `the stop took ${Math.round(took)} ms, well inside 10 s`);
    assert.deepEqual(exits, [0]);
    assert.ok(!lines.some((l) => /longer than/.test(String(l.msg))), 'no overrun logged');
  });
});
