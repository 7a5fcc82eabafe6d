import type { EventEnvelope, RpcReply } from '@bo/contracts';

/** What travels with every RPC request besides its payload (AMQP headers on the wire). */
export interface RequestMeta {
  orgId: number;
  userId?: string;
  requestId: string;
  idempotencyKey?: string;
}

export type RpcServer = (operation: string, payload: unknown, meta: RequestMeta) => Promise<RpcReply>;

export interface EventDelivery {
  attempt: number;
}

export type EventHandler = (event: EventEnvelope, delivery: EventDelivery) => Promise<void>;

export interface Subscription {
  /** Durable consumer name, unique in the system, e.g. `partners.ledger`. */
  name: string;
  /** Event types (topic routing keys, wildcards allowed). */
  events: readonly string[];
  handler: EventHandler;
}

/**
 * The one interface services see for messaging; implemented over RabbitMQ and in process.
 */
export interface Bus {
  readonly kind: 'amqp' | 'memory';
  /** Sends an RPC and waits for its reply; rejects with BusError on no route, timeout or broker loss. */
  request(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RpcReply>;
  /** Starts answering the given operations for a service. */
  serve(service: string, operations: readonly string[], server: RpcServer): Promise<void>;
  /** Publishes an event; resolves once the broker has confirmed it. */
  publish(event: EventEnvelope): Promise<void>;
  subscribe(subscription: Subscription): Promise<void>;
  /** Stops taking new messages and waits for the handlers in flight. */
  stopConsuming(): Promise<void>;
  close(): Promise<void>;
}
