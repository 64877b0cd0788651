import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * A bare node:https server with the service's TLS material (TLS_CERT_FILE/TLS_KEY_FILE, same minimum
 * version), keep-alive on, on a free loopback port. Prints `listening on https://…/api/v1` like the
 * service so the bench starts both the same way, and exits on SIGTERM.
 */
export function serveFloor(
  handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void,
  onClose: () => Promise<void> = async () => {},
): void {
  const { TLS_CERT_FILE, TLS_KEY_FILE } = process.env;
  if (!TLS_CERT_FILE || !TLS_KEY_FILE) throw new Error('TLS_CERT_FILE and TLS_KEY_FILE are required');
  const server = https.createServer(
    {
      cert: fs.readFileSync(TLS_CERT_FILE, 'utf8'),
      key: fs.readFileSync(TLS_KEY_FILE, 'utf8'),
      minVersion: 'TLSv1.2',
      // Node's defaults, as the service has them through Fastify: keep-alive 72 s.
      keepAliveTimeout: 72_000,
    },
    handler,
  );
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stderr.write(`floor listening on https://127.0.0.1:${port}/api/v1\n`);
  });
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void onClose().finally(() => process.exit(0)));
  });
}

export function sendJson(res: import('node:http').ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
