import type { EventEnvelope, RpcReply } from '@bo/contracts';

/** What travels with every RPC request besides its payload (AMQP headers on the wire). */
export interface RequestMeta {
  orgId: number;
  userId?: string;
  requestId: string;
  /** The client's Idempotency-Key, when it sent one. */
  idempotencyKey?: string;
  /**
   * The key a write is recorded under where its effect happens: the client's Idempotency-Key, else
   * one the gateway made for this HTTP request. A redelivered or retried command carrying it again
   * returns the recorded reply and does nothing. Absent on reads and on internal calls.
   */
  operationKey?: string;
}

/**
 * A reply as it travelled: `json` holds the body (or, when not ok, `{ code, message, errors }`)
 * still serialized, so a caller that only forwards it need not parse and re-serialize it.
 */
export interface RawReply {
  ok: boolean;
  status: number;
  json: string;
}

export function parseRawReply(raw: RawReply): RpcReply {
  const parsed = JSON.parse(raw.json) as Record<string, unknown>;
  if (raw.ok) return { ok: true, status: raw.status, body: parsed };
  return { ok: false, status: raw.status, ...(parsed as Omit<Extract<RpcReply, { ok: false }>, 'ok' | 'status'>) };
}

export function toRawReply(reply: RpcReply): RawReply {
  if (reply.ok) return { ok: true, status: reply.status, json: JSON.stringify(reply.body) };
  const { ok: _ok, status, ...error } = reply;
  return { ok: false, status, json: JSON.stringify(error) };
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
  /** The same, with the reply body left serialized (the gateway forwards it as it is). */
  requestRaw(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RawReply>;
  /** Starts answering the given operations for a service. */
  serve(service: string, operations: readonly string[], server: RpcServer): Promise<void>;
  /** Publishes an event; resolves once the broker has confirmed it. */
  publish(event: EventEnvelope): Promise<void>;
  subscribe(subscription: Subscription): Promise<void>;
  /** Stops taking new messages and waits for the handlers in flight. */
  stopConsuming(): Promise<void>;
  close(): Promise<void>;
}
