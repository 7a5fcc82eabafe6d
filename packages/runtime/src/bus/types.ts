import type { EventEnvelope, RpcReply } from '@bo/contracts';
import { serializeBodyBytes } from '../json-text';
import type { TraceContext } from '../observability/tracing';

/** What travels with every RPC request besides its payload (AMQP headers on the wire). */
export interface RequestMeta {
  orgId: number;
  userId?: string;
  requestId: string;
  /**
   * The key a write is recorded under where its effect happens: the client's Idempotency-Key, else
   * one the gateway made for this HTTP request. A redelivered or retried command carrying it again
   * returns the recorded reply and does nothing. Absent on reads and on internal calls.
   */
  operationKey?: string;
  /** W3C trace context of the caller's span (headers `traceparent`, `tracestate`); set only while tracing is on. */
  trace?: TraceContext;
  /** When the caller stops waiting (epoch ms; header `x-deadline`): a request still waiting for its turn then is not run. */
  deadline?: number;
}

/**
 * A reply as it travelled: `content` holds the body (or, when not ok, `{ code, message, errors }`)
 * as UTF-8 JSON bytes, so a caller that only forwards it need neither parse it nor decode it into a
 * string and encode it again (the gateway writes the bytes to the client as they came).
 */
export interface RawReply {
  ok: boolean;
  status: number;
  content: Buffer;
}

export function parseRawReply(raw: RawReply): RpcReply {
  const parsed = JSON.parse(raw.content.toString()) as Record<string, unknown>;
  if (raw.ok) return { ok: true, status: raw.status, body: parsed };
  return { ok: false, status: raw.status, ...(parsed as Omit<Extract<RpcReply, { ok: false }>, 'ok' | 'status'>) };
}

export function toRawReply(reply: RpcReply): RawReply {
  if (reply.ok) return { ok: true, status: reply.status, content: serializeBodyBytes(reply.body) };
  const { ok: _ok, status, ...error } = reply;
  return { ok: false, status, content: Buffer.from(JSON.stringify(error)) };
}

export type RpcServer = (operation: string, payload: unknown, meta: RequestMeta) => Promise<RpcReply>;

export interface EventDelivery {
  attempt: number;
  /** W3C trace context the event was published in (RabbitMQ headers), when tracing is on. */
  trace?: TraceContext;
}

export interface PublishOptions {
  /** W3C trace context to publish the event in (carried as message headers). */
  trace?: TraceContext;
}

export type EventHandler = (event: EventEnvelope, delivery: EventDelivery) => Promise<void>;

export interface Subscription {
  /** Durable consumer name, unique in the system, e.g. `partners.ledger`. */
  name: string;
  /** Event types (topic routing keys, wildcards allowed). */
  events: readonly string[];
  handler: EventHandler;
  /**
   * Where a transport that holds nothing itself (the in-process bus) keeps this consumer's
   * deliveries not yet handled, so they outlive the process. RabbitMQ's durable queues make it
   * unnecessary there; without it the in-process bus keeps them in memory only.
   */
  store?: DeliveryStore;
  /**
   * Makes the subscription routed: of its `events`, only the types routed to it reach it, starting
   * with these (exact types among `events`); `Bus.addRoutes` and `Bus.setRoutes` change them. For a
   * consumer that costs every event something while it rarely wants any (webhooks with no endpoint).
   */
  routes?: readonly string[];
}

/** A delivery still to make: which attempt it will be and when it is due (epoch ms). */
export interface PendingDelivery {
  event: EventEnvelope;
  attempt: number;
  dueAt: number;
}

/**
 * One consumer's deliveries not yet handled, kept durably: a row per event from the moment the bus
 * accepts it until its handler succeeded or it was dead-lettered. Implemented over the consuming
 * service's own schema, so the bus knows nothing of databases.
 */
export interface DeliveryStore {
  /** Records an event's first delivery, due at once; false when it is pending already (published again). */
  add(event: EventEnvelope): Promise<boolean>;
  /** After a failure: the next attempt and when it is due. */
  retry(eventId: string, attempt: number, dueAt: number, error: string): Promise<void>;
  /** Handled: nothing left to deliver. */
  done(eventId: string): Promise<void>;
  /** Failed its last attempt: moved to the dead letters, where a person can see it. */
  dead(event: EventEnvelope, attempts: number, error: string): Promise<void>;
  /** Every delivery still to make, read when the consumer subscribes. */
  pending(): Promise<PendingDelivery[]>;
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
  publish(event: EventEnvelope, opts?: PublishOptions): Promise<void>;
  subscribe(subscription: Subscription): Promise<void>;
  /**
   * Routes these event types to a routed subscription made on this bus, in addition to those routed
   * already; resolves once an event of them published from now on reaches it (RabbitMQ: bound).
   * Rejects with BusError when the subscription is not routed here yet or the broker is unreachable.
   */
  addRoutes(subscription: string, types: readonly string[]): Promise<void>;
  /**
   * Routes exactly these event types to a routed subscription from now on: routes them and unroutes
   * every other of its `events`. Only this ever unroutes: a reconnect routes again what this bus
   * routed and unroutes nothing, so one instance never undoes what another routed.
   */
  setRoutes(subscription: string, types: readonly string[]): Promise<void>;
  /** Stops taking new messages and waits for the handlers in flight. */
  stopConsuming(): Promise<void>;
  close(): Promise<void>;
}
