import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { retryable, type CarefulClient } from './client';

/** What the receiver saw of one webhook-id. */
export interface Received {
  count: number;
  /** Payload ids and types seen under this webhook-id: one of each, or a delivery was not what it claimed. */
  payloadIds: Set<string>;
  types: Set<string>;
}

/**
 * The chaos run's webhook receiver: an HTTP server the webhooks service delivers every event of
 * each organization to. It verifies each signature with the Standard Webhooks reference library and
 * answers 500 to a share of the deliveries at random, so retries run beside the faults.
 */
export class WebhookReceiver {
  readonly received = new Map<string, Received>();
  readonly badSignatures: string[] = [];
  failed = 0;
  private server?: Server;
  private readonly secrets = new Map<number, string>();

  constructor(
    private readonly random: () => number,
    private readonly failShare = 0.1,
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const org = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('org'));
        const id = String(req.headers['webhook-id'] ?? '');
        try {
          const payload = new Webhook(this.secrets.get(org) ?? '').verify(body, req.headers as Record<string, string>) as {
            id: string;
            type: string;
          };
          if (this.random() < this.failShare) {
            this.failed += 1;
            res.writeHead(500).end('chaos says no');
            return;
          }
          const seen = this.received.get(id) ?? { count: 0, payloadIds: new Set<string>(), types: new Set<string>() };
          seen.count += 1;
          seen.payloadIds.add(payload.id);
          seen.types.add(payload.type);
          this.received.set(id, seen);
          res.writeHead(204).end();
        } catch (err) {
          this.badSignatures.push(`${id}: ${(err as Error).message}`);
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** An endpoint for every event of the organization, its secret kept to verify with. */
  async subscribe(client: CarefulClient, org: number, url: string): Promise<void> {
    // Asked again, under one Idempotency-Key, while the answer is a retryable one: the webhooks
    // service answers 503 when RabbitMQ is slow to bind the routes, which a fault may well cause.
    const key = `chaos-webhook-endpoint-${org}-${Date.now()}`;
    const body = { org_id: String(org), action: 'create', url: `${url}?org=${org}`, events: ['*'], description: 'chaos receiver' };
    let answer = await client.post(org, '/integrations/webhooks', body, key);
    for (let attempt = 1; attempt < 8 && retryable(answer.status); attempt += 1) {
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      answer = await client.post(org, '/integrations/webhooks', body, key);
    }
    const secret = (answer.body as { secret?: unknown } | undefined)?.secret;
    if (answer.status !== 200 || typeof secret !== 'string')
      throw new Error(`webhook endpoint not created: ${answer.status} ${JSON.stringify(answer.body)}`);
    this.secrets.set(org, secret);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
