import net from 'node:net';

export type FrozenRedis = { url: string; close(): Promise<void> };

/**
 * A server that completes ioredis's connection handshake (`HELLO`, `CLIENT SETINFO`), then answers nothing: a
 * Redis that froze, or a link that broke, after the service connected. A server that answers nothing at all
 * is another case: ioredis never gets ready, so every command fails at once as not writable.
 */
export async function startFrozenRedis(): Promise<FrozenRedis> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (data) => {
      const handshake = data.toString().match(/\$5\r\nhello\r\n|\$6\r\nclient\r\n/gi)?.length ?? 0;
      socket.write('+OK\r\n'.repeat(handshake));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
