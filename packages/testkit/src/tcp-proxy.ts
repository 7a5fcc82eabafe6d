import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test controls, put between processes and one upstream (PostgreSQL, RabbitMQ), so a
 * test can break the network without touching a shared server:
 * - `cut()` resets every established connection (what a server restart or a dropped link does);
 * - `refuse(ms)` resets every new connection for a while (a server that is down), until
 *   `stopRefusing()` if that comes first;
 * - `blackhole(ms)` stalls every byte, old and new connections alike, for a while (a partition),
 *   then either resumes (the link healed) or resets what it held (the peers gave up).
 * Everything else is forwarded as is, with Nagle off on both sides.
 */
export interface TcpProxyOptions {
  /** Where to forward to. */
  targetHost: string;
  targetPort: number;
  /** Where to listen; port 0 (default) picks a free one. */
  host?: string;
  port?: number;
}

export interface TcpProxyStats {
  /** Connection pairs open now. */
  open: number;
  accepted: number;
  /** Connections reset by `cut()` or at the end of a blackhole. */
  cut: number;
  /** New connections reset while refusing. */
  refused: number;
}

interface Pair {
  client: Socket;
  upstream?: Socket;
  /** Bytes from the client held until the upstream connection is there. */
  early: Buffer[];
}

export class TcpProxy {
  private server?: Server;
  private readonly pairs = new Set<Pair>();
  private refuseUntil = 0;
  private stalled = false;
  private readonly stats_ = { accepted: 0, cut: 0, refused: 0 };

  constructor(private readonly opts: TcpProxyOptions) {}

  async start(): Promise<this> {
    const server = createServer({ noDelay: true }, (client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', () => resolve());
    });
    this.server = server;
    return this;
  }

  get port(): number {
    const addr = this.server?.address() as AddressInfo | null | undefined;
    if (!addr) throw new Error('proxy not started');
    return addr.port;
  }

  get host(): string {
    return this.opts.host ?? '127.0.0.1';
  }

  stats(): TcpProxyStats {
    return { open: this.pairs.size, ...this.stats_ };
  }

  /** Resets every established connection; answers how many. New connections are accepted as usual. */
  cut(): number {
    const n = this.pairs.size;
    for (const pair of [...this.pairs]) this.destroy(pair, true);
    this.stats_.cut += n;
    return n;
  }

  /** Resets every new connection for `ms` (established ones are untouched: call `cut()` too for a restart). */
  refuse(ms: number): void {
    this.refuseUntil = Math.max(this.refuseUntil, Date.now() + ms);
  }

  /** Ends a refusal now (a server back sooner than `refuse` said): new connections are forwarded again. */
  stopRefusing(): void {
    this.refuseUntil = 0;
  }

  get refusing(): boolean {
    return Date.now() < this.refuseUntil;
  }

  /**
   * Stalls all traffic for `ms`: nothing is read from either side, new connections wait. Then,
   * with `thenCut`, resets every connection it held; otherwise lets the held bytes flow on.
   */
  async blackhole(ms: number, thenCut = false): Promise<void> {
    this.stalled = true;
    for (const pair of this.pairs) {
      pair.client.pause();
      pair.upstream?.pause();
    }
    await new Promise((r) => setTimeout(r, ms));
    this.stalled = false;
    if (thenCut) {
      this.cut();
      return;
    }
    for (const pair of [...this.pairs]) {
      if (!pair.upstream) this.dial(pair);
      pair.client.resume();
      pair.upstream?.resume();
    }
  }

  async close(): Promise<void> {
    this.cut();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.stats_.accepted += 1;
    client.setNoDelay(true);
    client.on('error', () => undefined);
    if (this.refusing) {
      this.stats_.refused += 1;
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, early: [] };
    this.pairs.add(pair);
    client.on('close', () => this.destroy(pair, false));
    client.on('data', (chunk: Buffer) => {
      if (pair.upstream) this.forward(chunk, pair.upstream, client);
      else pair.early.push(chunk);
    });
    if (this.stalled) client.pause();
    else this.dial(pair);
  }

  private dial(pair: Pair): void {
    const upstream = connect({ host: this.opts.targetHost, port: this.opts.targetPort, noDelay: true });
    pair.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('close', () => this.destroy(pair, false));
    upstream.on('connect', () => {
      for (const chunk of pair.early.splice(0)) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => this.forward(chunk, pair.client, upstream));
    if (this.stalled) upstream.pause();
  }

  /** Writes with back-pressure: a full destination pauses its source until it drains (unless stalled). */
  private forward(chunk: Buffer, to: Socket, from: Socket): void {
    if (to.destroyed) return;
    if (to.connecting) {
      to.write(chunk);
      return;
    }
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => {
        if (!this.stalled) from.resume();
      });
    }
  }

  /** A cut resets both sides (RST); a side that closed by itself closes the other one plainly. */
  private destroy(pair: Pair, reset: boolean): void {
    if (!this.pairs.delete(pair)) return;
    for (const socket of [pair.client, pair.upstream]) {
      if (!socket || socket.destroyed) continue;
      if (reset) socket.resetAndDestroy();
      else socket.destroy();
    }
  }
}
