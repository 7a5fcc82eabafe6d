import type { EventEnvelope, RpcReply } from '@bo/contracts';
import type { Logger } from '../logger';
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_BASE_MS } from './backoff';
import { AmqpConnection } from './connection';
import { Consumers } from './consumers';
import { BusError } from '../errors';
import { ConsumerRoutes, consumeEvents } from './event-consumer';
import { EventPublisher } from './event-publisher';
import { RpcClient } from './rpc-client';
import { serveRpc } from './rpc-server';
import { consumerQueues, deleteTopology, eventsExchangeName, rpcExchangeName, rpcQueueName, type QueueType } from './topology';
import { parseRawReply, type Bus, type PublishOptions, type RawReply, type RequestMeta, type RpcServer, type Subscription } from './types';

export { deleteTopology, topologyNames, queueTypes, type QueueType } from './topology';

export interface AmqpBusOptions {
  /** One node's URL, or a comma-separated list of a cluster's nodes. */
  url: string;
  prefix: string;
  log: Logger;
  rpcPrefetch?: number;
  eventPrefetch?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  /** How durable queues are declared (BUS_QUEUE_TYPE, topology.ts); classic by default. */
  queueType?: QueueType;
  /** How long the first connection may take before start-up fails (the broker may still be booting). */
  connectTimeoutMs?: number;
}

/**
 * RabbitMQ transport. One connection per process with Nagle off (connection.ts); RPC over direct
 * reply-to with a per-message expiration equal to the caller's timeout (rpc-client.ts,
 * rpc-server.ts); events on a topic exchange through a confirm channel (event-publisher.ts);
 * durable event queues with a retry queue per back-off delay and a dead-letter queue
 * (event-consumer.ts, names in topology.ts), classic or quorum queues (BUS_QUEUE_TYPE). On
 * connection loss it reconnects with back-off, to the next node of a cluster when given several,
 * re-declares its topology and restores its consumers.
 */
export class AmqpBus implements Bus {
  readonly kind = 'amqp' as const;
  private readonly connection: AmqpConnection;
  private readonly consumers = new Consumers();
  private readonly rpc: RpcClient;
  private readonly events: EventPublisher;
  /** The routed subscriptions made on this bus, by name. */
  private readonly routed = new Map<string, ConsumerRoutes>();

  constructor(private readonly opts: AmqpBusOptions) {
    this.connection = new AmqpConnection(opts);
    this.rpc = new RpcClient(this.connection, this.rpcExchange);
    this.events = new EventPublisher(this.connection, this.eventsExchange);
  }

  get rpcExchange(): string {
    return rpcExchangeName(this.opts.prefix);
  }
  get eventsExchange(): string {
    return eventsExchangeName(this.opts.prefix);
  }

  connect(): Promise<void> {
    return this.connection.connect();
  }

  async request(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RpcReply> {
    return parseRawReply(await this.requestRaw(operation, payload, meta, timeoutMs));
  }

  requestRaw(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RawReply> {
    return this.rpc.request(operation, payload, meta, timeoutMs);
  }

  serve(service: string, operations: readonly string[], server: RpcServer): Promise<void> {
    const opts = {
      queue: rpcQueueName(this.opts.prefix, service),
      exchange: this.rpcExchange,
      operations,
      prefetch: this.opts.rpcPrefetch ?? 32,
      queueType: this.opts.queueType ?? 'classic',
      log: this.opts.log,
    };
    return serveRpc(this.connection, this.consumers, opts, server);
  }

  publish(event: EventEnvelope, opts?: PublishOptions): Promise<void> {
    return this.events.publish(event, opts);
  }

  /** `sub.store` is not used: the broker's durable queues keep what is not handled yet. */
  subscribe(sub: Subscription): Promise<void> {
    const retryBaseMs = this.opts.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    const queues = consumerQueues(this.opts.prefix, sub.name, retryBaseMs);
    let routes: ConsumerRoutes | undefined;
    if (sub.routes) {
      routes = new ConsumerRoutes(sub, queues.main, this.eventsExchange);
      this.routed.set(sub.name, routes);
    }
    return consumeEvents(
      this.connection,
      this.consumers,
      this.events,
      {
        queues,
        exchange: this.eventsExchange,
        prefetch: this.opts.eventPrefetch ?? 16,
        maxAttempts: this.opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        retryBaseMs,
        queueType: this.opts.queueType ?? 'classic',
        log: this.opts.log,
      },
      sub,
      routes,
    );
  }

  async addRoutes(subscription: string, types: readonly string[]): Promise<void> {
    await this.routesOf(subscription).add(types);
  }

  async setRoutes(subscription: string, types: readonly string[]): Promise<void> {
    await this.routesOf(subscription).set(types);
  }

  private routesOf(subscription: string): ConsumerRoutes {
    const routes = this.routed.get(subscription);
    if (!routes) throw new BusError('unavailable', `${subscription} is not a routed subscription of this bus (yet)`);
    return routes;
  }

  stopConsuming(): Promise<void> {
    return this.consumers.stop();
  }

  async close(): Promise<void> {
    await this.stopConsuming();
    this.rpc.close();
    await this.connection.close();
  }

  /**
   * Test helper: removes every queue and exchange this bus declared. A bus sharing another's
   * prefix passes `{ exchanges: false }`, so the others keep working.
   */
  async destroyTopology(opts: { exchanges?: boolean } = {}): Promise<void> {
    const { declared } = this.connection;
    await deleteTopology(this.opts.url, {
      queues: [...declared.queues],
      exchanges: opts.exchanges === false ? [] : [...declared.exchanges],
    });
  }
}
