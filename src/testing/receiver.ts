import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export type ReceivedRequest = { headers: http.IncomingHttpHeaders; body: string; receivedAt: number };
/** The answer: status (200), a delay before it, and its body (`ok`). */
export type Reply = { status?: number; hangMs?: number; body?: string };

export type Receiver = {
  url: string;
  received: ReceivedRequest[];
  /** Decides each answer; default 200. */
  reply: (req: ReceivedRequest, index: number) => Reply;
  close(): Promise<void>;
};

/** A webhook receiver on loopback, over HTTP or HTTPS, that records every request byte for byte. */
export async function startReceiver(tls?: { key: string; cert: string }): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    reply: () => ({ status: 200 }),
    close: async () => {},
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      receiver.received.push(entry);
      const { status = 200, hangMs = 0, body = 'ok' } = receiver.reply(entry, receiver.received.length - 1);
      const send = () => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
      };
      if (hangMs > 0) setTimeout(send, hangMs).unref();
      else send();
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}/hooks`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
