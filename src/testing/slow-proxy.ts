import net from 'node:net';

export type SlowProxy = {
  /** The server's URL with the proxy's address in it (credentials and database kept). */
  url: string;
  /** From now on, answers reach the client this much later (0: at once); answers held so far go out with it. */
  delay(ms: number): void;
  /** From now on, answers are held back (a frozen server, a partition): the connection stays open, nothing comes. */
  hold(): void;
  close(): Promise<void>;
};

type Pending = { chunk: Buffer; due: number };
type Pair = { client: net.Socket; upstream: net.Socket; queue: Pending[]; timer: NodeJS.Timeout | null };

/**
 * A loopback TCP proxy in front of a real server (Redis) whose answers can be made late or withheld, in order.
 * What the client sends goes through at once, so the server has done its work when the answer is held.
 */
export async function startSlowProxy(targetUrl: string): Promise<SlowProxy> {
  const target = new URL(targetUrl);
  const pairs = new Set<Pair>();
  let delayMs = 0;
  let holding = false;

  function pump(pair: Pair) {
    if (pair.timer) clearTimeout(pair.timer);
    pair.timer = null;
    const now = performance.now();
    let head = pair.queue[0];
    while (head && head.due <= now) {
      pair.client.write(head.chunk);
      pair.queue.shift();
      head = pair.queue[0];
    }
    if (head && head.due !== Number.POSITIVE_INFINITY) {
      pair.timer = setTimeout(() => pump(pair), head.due - now);
    }
  }

  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    const pair: Pair = { client, upstream, queue: [], timer: null };
    pairs.add(pair);
    const drop = () => {
      if (pair.timer) clearTimeout(pair.timer);
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      pair.queue.push({ chunk, due: holding ? Number.POSITIVE_INFINITY : performance.now() + delayMs });
      pump(pair);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(typeof address === 'object' && address ? address.port : 0);

  return {
    url: url.toString(),
    delay(ms) {
      delayMs = ms;
      holding = false;
      const now = performance.now();
      for (const pair of pairs) {
        for (const p of pair.queue) if (p.due === Number.POSITIVE_INFINITY) p.due = now + ms;
        pump(pair);
      }
    },
    hold() {
      holding = true;
    },
    async close() {
      for (const pair of [...pairs]) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
