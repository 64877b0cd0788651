import net from 'node:net';

/**
 * How an outage looks to the client:
 * - `reset`: what a server restart does: every open connection is dropped and new ones are closed at once
 *   (PostgreSQL's fast shutdown terminates sessions; while down, connections are refused).
 * - `stall`: a network partition or a frozen server: connections are accepted or kept, but no byte moves.
 */
export type OutageMode = 'reset' | 'stall';

export type TcpProxy = {
  port: number;
  /** host:port to give a client instead of the real server's. */
  address: string;
  /** Connections made through the proxy since it started. */
  connections(): number;
  cut(mode?: OutageMode): void;
  restore(): void;
  close(): Promise<void>;
};

/**
 * A loopback TCP proxy we can cut and restore: it stands between the service and a shared PostgreSQL or
 * Redis so an outage is exactly what the service sees, without stopping a server other test runs use.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket | null }>();
  let outage: OutageMode | null = null;
  let total = 0;

  const server = net.createServer((client) => {
    total += 1;
    client.on('error', () => {});
    if (outage === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const pair: { client: net.Socket; upstream: net.Socket | null } = { client, upstream: null };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('close', drop);
    if (outage === 'stall') {
      // Accepted, never answered: the client waits for its own timeouts.
      client.pause();
      return;
    }
    connectUpstream(pair, drop);
  });

  function connectUpstream(pair: { client: net.Socket; upstream: net.Socket | null }, drop: () => void) {
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('error', () => drop());
    upstream.on('close', drop);
    pair.client.pipe(upstream);
    upstream.pipe(pair.client);
    pair.client.resume();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    address: `127.0.0.1:${port}`,
    connections: () => total,
    cut(mode = 'reset') {
      outage = mode;
      for (const pair of [...pairs]) {
        if (mode === 'reset') {
          pair.client.resetAndDestroy();
          pair.upstream?.destroy();
          pairs.delete(pair);
        } else {
          // Stop moving bytes both ways; the sockets stay open.
          pair.client.unpipe();
          pair.upstream?.unpipe();
          pair.client.pause();
          pair.upstream?.pause();
        }
      }
    },
    restore() {
      const was = outage;
      outage = null;
      if (was !== 'stall') return;
      for (const pair of [...pairs]) {
        if (pair.upstream) {
          pair.client.pipe(pair.upstream);
          pair.upstream.pipe(pair.client);
          pair.client.resume();
          pair.upstream.resume();
        } else {
          connectUpstream(pair, () => {
            pairs.delete(pair);
            pair.client.destroy();
            pair.upstream?.destroy();
          });
        }
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
