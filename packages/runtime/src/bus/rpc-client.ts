import { randomUUID } from 'node:crypto';
import type * as amqp from 'amqplib';
import { BusError } from '../errors';
import { withTimeout, type AmqpConnection } from './connection';
import { REPLY_TO, rpcRequestProperties } from './rpc-properties';
import type { RawReply, RequestMeta } from './types';

interface Pending {
  resolve(reply: RawReply): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The calling side of RPC: requests published with `mandatory` (no binding → returned at once) and
 * an expiration equal to the caller's timeout, replies over direct reply-to on one channel, matched
 * to their caller by correlation id.
 */
export class RpcClient {
  private channel?: Promise<amqp.Channel>;
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly connection: AmqpConnection,
    private readonly exchange: string,
  ) {}

  async request(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RawReply> {
    const started = Date.now();
    // The caller's time covers opening the channel too: a half-dead connection must not hold it longer.
    const channel = await withTimeout(this.replyChannel(), timeoutMs).catch((err: unknown) => {
      throw err instanceof BusError ? err : new BusError('unavailable', `No channel to send ${operation} on within ${timeoutMs} ms`);
    });
    const remainingMs = Math.max(1, timeoutMs - (Date.now() - started));
    const correlationId = randomUUID();
    return new Promise<RawReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new BusError('timeout', `No reply to ${operation} within ${timeoutMs} ms`));
      }, remainingMs);
      this.pending.set(correlationId, { resolve, reject, timer });
      try {
        this.publishRequest(channel, operation, payload, meta, remainingMs, correlationId);
      } catch (err) {
        // A channel that closed under us throws here: the request was never sent.
        this.settle(correlationId)?.reject(new BusError('unavailable', `Could not send ${operation}: ${(err as Error).message}`));
      }
    });
  }

  private publishRequest(
    channel: amqp.Channel,
    operation: string,
    payload: unknown,
    meta: RequestMeta,
    timeoutMs: number,
    correlationId: string,
  ): void {
    channel.publish(
      this.exchange,
      operation,
      Buffer.from(JSON.stringify(payload)),
      rpcRequestProperties(operation, correlationId, timeoutMs, {
        'x-org-id': meta.orgId,
        'x-user-id': meta.userId,
        'x-request-id': meta.requestId,
        'x-operation-key': meta.operationKey,
        traceparent: meta.trace?.traceparent,
        tracestate: meta.trace?.tracestate,
      }),
    );
  }

  /** The channel requests go out on and replies come back to, opened on first use. */
  private replyChannel(): Promise<amqp.Channel> {
    this.channel ??= (async () => {
      const ch = await this.connection.channel();
      // Direct reply-to answers only the channel that sent the request: once it is gone, so are the
      // replies. The request may have run, so the outcome is unknown, not "never sent".
      ch.on('close', () => {
        this.channel = undefined;
        this.rejectAll('Connection to RabbitMQ lost while waiting for the reply');
      });
      ch.on('return', (msg: amqp.Message) => {
        this.settle(msg.properties.correlationId)?.reject(new BusError('unroutable', `No service serves ${msg.fields.routingKey}`));
      });
      await ch.consume(
        REPLY_TO,
        (msg) => {
          if (!msg) return;
          const headers = msg.properties.headers ?? {};
          // Undefined when the caller gave up already.
          this.settle(msg.properties.correlationId)?.resolve({
            ok: headers['x-ok'] === true,
            status: Number(headers['x-status']),
            content: msg.content,
          });
        },
        { noAck: true },
      );
      return ch;
    })().catch((err) => {
      this.channel = undefined;
      throw err instanceof BusError ? err : new BusError('unavailable', (err as Error).message);
    });
    return this.channel;
  }

  /** Takes a request out of the pending map, its timer stopped; undefined if it is no longer waiting. */
  private settle(correlationId: unknown): Pending | undefined {
    const p = this.pending.get(String(correlationId));
    if (!p) return undefined;
    this.pending.delete(String(correlationId));
    clearTimeout(p.timer);
    return p;
  }

  private rejectAll(message: string): void {
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(new BusError('lost', message));
  }

  /** Fails every request still waiting: the bus is closing, so their replies will never be read. */
  close(): void {
    this.rejectAll('bus closed while waiting for the reply');
  }
}
