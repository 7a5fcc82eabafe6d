import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got: its headers and the exact body bytes (what a signature covers). */
export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
  payload: { id: string; type: string; created_at: string; org_id: number; data: Record<string, unknown> };
}

/** How the receiver answers a request: a status, or never (the request hangs until the sender gives up). */
export type Answer = number | 'hang';

/**
 * A webhook receiver a test starts on 127.0.0.1: it records every request and answers as the test
 * says (200 by default), can go down (stop listening, so connections are refused) and come back on
 * the same port.
 */
export class WebhookReceiver {
  readonly hooks: ReceivedHook[] = [];
  /** Requests held open by `hang`, answered never (closed when the receiver closes). */
  readonly hanging: ServerResponse[] = [];
  answer: (hook: ReceivedHook) => Answer = () => 200;
  private server?: Server;
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const hook: ReceivedHook = { headers: req.headers, body, payload: JSON.parse(body) as ReceivedHook['payload'] };
        this.hooks.push(hook);
        const answer = this.answer(hook);
        if (answer === 'hang') this.hanging.push(res);
        else res.writeHead(answer).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  ofType(type: string): ReceivedHook[] {
    return this.hooks.filter((h) => h.payload.type === type);
  }

  /** Down: every connection closed, new ones refused, until start() again (same port). */
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}
