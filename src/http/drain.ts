import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long, once the server stops, a connection may go on sending a request it has not finished. */
export const SLOW_CLIENT_BOUND_MS = 2_000;

type Exchange = { request: IncomingMessage; response: ServerResponse };

/** A TCP connection by its peer: the same for the socket Node accepted and the TLS socket over it. */
const peerOf = (socket: Socket): string => `${socket.remoteAddress}|${socket.remotePort}`;

/** Closes the connection once the response is out; Node detaches the socket from it at that point. */
const closeAfter = ({ request, response }: Exchange): void => {
  const { socket } = request;
  if (response.writableFinished) socket.destroy();
  else response.once('finish', () => socket.end(() => socket.destroy()));
};

/**
 * Ends the server's connections at stop so that the stop fits its grace. Node's `close()` ends idle keep-alive
 * connections only: one still in its TLS handshake (up to 120 s), still sending its request head (60 s) or a body
 * nobody waits for any more (after an early answer: the keep-alive timeout, 72 s) would hold it. Once `stop()` is
 * called, a request being answered (received in full, its response not finished) still finishes, and its
 * connection closes after it; after `boundMs` every other connection is closed.
 */
export function connectionDrain(server: Server, boundMs = SLOW_CLIENT_BOUND_MS) {
  const accepted = new Map<string, Socket>();
  const secured = new Map<string, Socket>();
  // By the socket requests arrive on (the TLS socket on HTTPS): its latest request, one at a time.
  const latest = new WeakMap<Socket, Exchange>();
  let stopping = false;

  server.on('connection', (socket: Socket) => {
    const peer = peerOf(socket);
    accepted.set(peer, socket);
    socket.once('close', () => {
      accepted.delete(peer);
      secured.delete(peer);
    });
  });
  server.on('secureConnection', (socket: Socket) => secured.set(peerOf(socket), socket));
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const exchange = { request, response };
    latest.set(request.socket, exchange);
    if (stopping) closeAfter(exchange);
  });

  const answering = (peer: string, socket: Socket): Exchange | null => {
    const exchange = latest.get(secured.get(peer) ?? socket);
    return exchange?.request.complete && !exchange.response.writableFinished ? exchange : null;
  };

  return {
    /** From `stop()` on: a request arriving now is refused (503), its connection closed after the answer. */
    get stopping(): boolean {
      return stopping;
    },
    stop(): void {
      if (stopping) return;
      stopping = true;
      for (const [peer, socket] of accepted) {
        const exchange = answering(peer, socket);
        if (exchange) closeAfter(exchange);
      }
      const timer = setTimeout(() => {
        for (const [peer, socket] of accepted) if (!answering(peer, socket)) socket.destroy();
      }, boundMs);
      timer.unref();
      server.once('close', () => clearTimeout(timer));
    },
  };
}
