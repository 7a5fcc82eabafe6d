import { randomUUID } from 'node:crypto';
import type * as amqp from 'amqplib';
import type { RpcReply } from '@bo/contracts';
import type { Logger } from '../logger';
import { traceContextFrom } from '../observability/tracing';
import { safely, type AmqpConnection } from './connection';
import type { Consumers } from './consumers';
import { queueDeclaration, type QueueType } from './topology';
import { toRawReply, type RequestMeta, type RpcServer } from './types';

export interface RpcServeOptions {
  queue: string;
  exchange: string;
  operations: readonly string[];
  prefetch: number;
  queueType: QueueType;
  log: Logger;
}

/**
 * The serving side of RPC: one durable queue per service bound by each operation it serves; each
 * request is answered on its reply-to address and acked after the reply went out.
 */
export async function serveRpc(connection: AmqpConnection, consumers: Consumers, opts: RpcServeOptions, server: RpcServer): Promise<void> {
  await connection.register(async () => {
    const ch = await connection.channel();
    await ch.assertQueue(opts.queue, queueDeclaration(opts.queueType, { role: 'rpc' }));
    connection.declared.queues.add(opts.queue);
    for (const op of opts.operations) await ch.bindQueue(opts.queue, opts.exchange, op);
    await ch.prefetch(opts.prefetch);
    await consumers.consume(ch, opts.queue, (msg) => handleRequest(ch, msg, server, opts.log));
  });
}

async function handleRequest(ch: amqp.Channel, msg: amqp.ConsumeMessage, server: RpcServer, log: Logger): Promise<void> {
  const headers = msg.properties.headers ?? {};
  const deadline = Number(headers['x-deadline'] ?? 0);
  if (deadline && Date.now() > deadline) {
    // Its caller gave up: running it now would be a write nobody sees the answer of.
    log.warn({ operation: msg.fields.routingKey, request_id: headers['x-request-id'] }, 'dropping expired request');
    safely(() => ch.ack(msg));
    return;
  }
  const meta: RequestMeta = {
    orgId: Number(headers['x-org-id']),
    userId: optionalString(headers['x-user-id']),
    requestId: String(headers['x-request-id'] ?? randomUUID()),
    operationKey: optionalString(headers['x-operation-key']),
    trace: traceContextFrom(headers),
    deadline: deadline || undefined,
  };
  let reply: RpcReply;
  try {
    reply = await server(msg.fields.routingKey, JSON.parse(msg.content.toString()), meta);
  } catch (err) {
    log.error({ err, request_id: meta.requestId }, 'RPC server failed');
    reply = { ok: false, status: 500, code: 'internal_error', message: `Internal error (request id ${meta.requestId})` };
  }
  safely(() => {
    const { replyTo, correlationId } = msg.properties as { replyTo?: string; correlationId?: string };
    if (replyTo) {
      // Status travels in headers and the content is the body alone, so the gateway can forward it unparsed.
      const raw = toRawReply(reply);
      ch.sendToQueue(replyTo, raw.content, {
        correlationId,
        contentType: 'application/json',
        headers: { 'x-ok': raw.ok, 'x-status': raw.status },
      });
    }
    ch.ack(msg);
  });
}

function optionalString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  // amqplib hands a header back as a Buffer when the sender wrote it as bytes.
  if (Buffer.isBuffer(value)) return value.toString();
  return typeof value === 'string' ? value : JSON.stringify(value);
}
