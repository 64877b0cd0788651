import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { makeSelfSignedCertificate } from '../../src/http/tls.ts';

/** A webhook receiver that misbehaves in one way, counting the requests it saw. */
export type BadReceiver = {
  kind: string;
  url: string;
  hits(): number;
  /** Lets every held request or connection go (hanging kinds); the others ignore it. */
  release(): void;
  close(): Promise<void>;
};

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function closer(server: net.Server, sockets: Set<net.Socket>) {
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

/**
 * A plain-HTTP receiver that reads each request whole, counts it, then hands its response to `answer`.
 * `release` is given the open sockets; `beforeClose` runs before they are destroyed.
 */
async function httpReceiver(
  kind: string,
  answer: (res: http.ServerResponse) => void,
  hooks: { release?(sockets: Set<net.Socket>): void; beforeClose?(): void } = {},
): Promise<BadReceiver> {
  let hits = 0;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits += 1;
      answer(res);
    });
  });
  const port = await listen(server);
  const close = closer(server, sockets);
  return {
    kind,
    url: `http://127.0.0.1:${port}/hooks`,
    hits: () => hits,
    release: () => hooks.release?.(sockets),
    async close() {
      hooks.beforeClose?.();
      await close();
    },
  };
}

/** Answers every request with this status (500, 503, 410…). */
export function statusReceiver(status: number): Promise<BadReceiver> {
  return httpReceiver(`HTTP ${status}`, (res) =>
    res.writeHead(status, { 'content-type': 'text/plain' }).end('no'),
  );
}

/** Reads the request, then never answers until released (then 500): the sender's timeout must fire. */
export function hangingReceiver(): Promise<BadReceiver> {
  const held = new Set<http.ServerResponse>();
  return httpReceiver('timeout (no answer)', (res) => held.add(res), {
    release() {
      for (const res of held) if (!res.destroyed) res.writeHead(500).end();
      held.clear();
    },
  });
}

/** Sends 200 and its headers at once, then the body a byte at a time, slower than any timeout. */
export function slowBodyReceiver(): Promise<BadReceiver> {
  const timers = new Set<NodeJS.Timeout>();
  return httpReceiver(
    'slow body',
    (res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed || sent >= 1000) {
          clearInterval(timer);
          timers.delete(timer);
          return;
        }
        sent += 1;
        res.write('x');
      }, 200);
      timers.add(timer);
    },
    {
      release: (sockets) => {
        for (const s of sockets) s.destroy();
      },
      beforeClose: () => {
        for (const t of timers) clearInterval(t);
      },
    },
  );
}

/** Accepts the TCP connection and never says a word (no TLS, no HTTP) until released. */
export async function silentSocketReceiver(): Promise<BadReceiver> {
  let hits = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    hits += 1;
    socket.on('error', () => {});
  });
  const port = await listen(server);
  return {
    kind: 'accepts, never answers',
    url: `http://127.0.0.1:${port}/hooks`,
    hits: () => hits,
    release() {
      for (const s of sockets) s.destroy();
    },
    close: closer(server, sockets),
  };
}

/** A port nobody listens on: every connection is refused. */
export async function refusingReceiver(): Promise<BadReceiver> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    kind: 'connection refused',
    url: `http://127.0.0.1:${port}/hooks`,
    hits: () => 0,
    release() {},
    close: async () => {},
  };
}

/** HTTPS with a certificate nobody trusts: the handshake fails (the sender must not skip verification). */
export async function untrustedTlsReceiver(): Promise<BadReceiver> {
  let hits = 0;
  const sockets = new Set<net.Socket>();
  const server = https.createServer(await makeSelfSignedCertificate(), (req, res) => {
    req.resume();
    hits += 1;
    res.writeHead(200).end('ok');
  });
  const port = await listen(server);
  return {
    kind: 'TLS error (untrusted certificate)',
    url: `https://127.0.0.1:${port}/hooks`,
    hits: () => hits,
    release() {},
    close: closer(server, sockets),
  };
}

/** Answers 302 to another URL; a sender that followed it would show up there. */
export function redirectingReceiver(to: string): Promise<BadReceiver> {
  return httpReceiver('redirect (302)', (res) => res.writeHead(302, { location: to }).end());
}
