import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP load balancer in front of gateway replicas, as a deployment puts one: each new connection
 * goes to the next replica (round robin), so the bench's keep-alive connections are spread evenly.
 * Bytes are passed through untouched, Nagle off on both sides.
 */
export interface Balancer {
  base: string;
  close(): Promise<void>;
}

export async function startBalancer(targets: readonly number[]): Promise<Balancer> {
  let next = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const port = targets[next++ % targets.length] as number;
    const upstream = connect({ host: '127.0.0.1', port, noDelay: true });
    client.setNoDelay(true);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    }
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('error', end);
    upstream.once('error', end);
    client.once('close', end);
    upstream.once('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
