import { randomUUID } from 'node:crypto';
import * as amqplib from 'amqplib';
import type { EventEnvelope } from '@bo/contracts';
import { testAmqpUrl, uniqueName } from '@bo/testkit';
import { AmqpBus, type AmqpBusOptions } from '../src/bus/amqp';
import { createLogger } from '../src/logger';

// What the RabbitMQ bus tests share: their logger, request metadata, envelopes, a look at the
// broker behind the buses' backs, and the server and client buses most tests run over.

export const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
export const meta = { orgId: 1, requestId: 'req-1' };

export function envelope(type: string, data: Record<string, unknown> = {}): EventEnvelope {
  return { id: randomUUID(), type, occurred_at: '2026-01-01T00:00:00', org_id: 1, data };
}

/** Runs `work` on a channel of its own connection (for looking at queues behind the buses' backs). */
export async function onChannel<T>(url: string, work: (ch: amqplib.Channel) => Promise<T>): Promise<T> {
  const conn = await amqplib.connect(url);
  try {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined); // a missing queue closes the channel; the caller sees the rejection
    return await work(ch);
  } finally {
    await conn.close().catch(() => undefined);
  }
}

export const queueDepth = (url: string, queue: string) => onChannel(url, async (ch) => (await ch.checkQueue(queue)).messageCount);

export interface BusPair {
  url: string;
  prefix: string;
  /** Serves and consumes, with fast retries (20 ms base, 3 attempts). */
  server: AmqpBus;
  /** Sends requests and publishes. */
  client: AmqpBus;
}

/** A server and a client bus on a new prefix (named after `stem`) of the test broker, both connected. */
export async function connectBusPair(stem: string, options: Partial<AmqpBusOptions> = {}): Promise<BusPair> {
  const url = await testAmqpUrl();
  const prefix = uniqueName(stem);
  const server = new AmqpBus({ url, prefix, log, retryBaseMs: 20, maxAttempts: 3, ...options });
  const client = new AmqpBus({ url, prefix, log, ...options });
  await server.connect();
  await client.connect();
  return { url, prefix, server, client };
}

/** Closes both buses and deletes their topology. */
export async function closeBusPair({ server, client }: Pick<BusPair, 'server' | 'client'>): Promise<void> {
  await client.close();
  await server.close();
  await server.destroyTopology();
}
