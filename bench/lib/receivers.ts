/**
 * Webhook receivers for scenario 4, in their own process so they never share an event loop with the
 * worker under test: `count` receivers on loopback (even ones plain HTTP, odd ones HTTPS with the bench
 * certificate) that answer 200 at once and note when each delivery arrived, plus one that reads the
 * request and never answers. Driven over IPC: `reset`, `counts`, `records`, `blip` (receiver `receiver`
 * answers 500 for the next `ms`; those answers are counted as `blipped`, not as received), and `release`
 * (closes the connections of the requests left hanging, so the sender sees them fail at once).
 * Run: node bench/lib/receivers.ts <count>  (TLS_CERT_FILE / TLS_KEY_FILE in the environment)
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export type ReceiverMessage =
  | { type: 'ready'; urls: string[]; hangUrl: string }
  | { type: 'counts'; counts: number[]; hung: number; blipped: number }
  | { type: 'records'; records: [eventId: string, receiver: number, atMs: number][] };
export type ReceiverCommand =
  | { type: 'reset' }
  | { type: 'counts' }
  | { type: 'records' }
  | { type: 'blip'; receiver: number; ms: number }
  | { type: 'release' };

const now = () => performance.timeOrigin + performance.now();

async function main() {
  const count = Number(process.argv[2] ?? 10);
  const tls = {
    cert: fs.readFileSync(process.env.TLS_CERT_FILE ?? '', 'utf8'),
    key: fs.readFileSync(process.env.TLS_KEY_FILE ?? '', 'utf8'),
  };
  let counts = new Array<number>(count).fill(0);
  let hung = 0;
  let blipped = 0;
  const failUntil = new Array<number>(count).fill(0);
  let records: [string, number, number][] = [];
  const servers: (http.Server | https.Server)[] = [];
  const listen = async (server: http.Server | https.Server, scheme: string) => {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  };
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      req.resume();
      req.on('end', () => {
        if (now() < (failUntil[i] ?? 0)) {
          blipped += 1;
          res.writeHead(500, { 'content-type': 'text/plain', 'content-length': 2 }).end('no');
          return;
        }
        counts[i] = (counts[i] ?? 0) + 1;
        records.push([String(req.headers['x-svc-event-id'] ?? ''), i, now()]);
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok');
      });
    };
    urls.push(
      await listen(
        i % 2 ? https.createServer(tls, handler) : http.createServer(handler),
        i % 2 ? 'https' : 'http',
      ),
    );
  }
  // The connections, not the requests: a request emits 'close' once its body is read, while it still hangs.
  const hanging = new Set<Socket>();
  const hangUrl = await listen(
    http.createServer((req) => {
      hung += 1;
      const socket = req.socket;
      hanging.add(socket);
      socket.once('close', () => hanging.delete(socket));
      req.resume();
    }),
    'http',
  );
  const send = (m: ReceiverMessage) => process.send?.(m);
  process.on('message', (m: ReceiverCommand) => {
    if (m.type === 'reset') {
      counts = new Array<number>(count).fill(0);
      hung = 0;
      blipped = 0;
      records = [];
      send({ type: 'counts', counts, hung, blipped });
    } else if (m.type === 'blip') {
      failUntil[m.receiver] = now() + m.ms;
      send({ type: 'counts', counts, hung, blipped });
    } else if (m.type === 'release') {
      for (const socket of hanging) socket.destroy();
      send({ type: 'counts', counts, hung, blipped });
    } else if (m.type === 'counts') send({ type: 'counts', counts, hung, blipped });
    else send({ type: 'records', records });
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', urls, hangUrl });
}

if (process.send) await main();
