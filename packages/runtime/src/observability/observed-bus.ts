import { SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import type { EventEnvelope } from '@bo/contracts';
import { BusError } from '../errors';
import type { Bus, EventDelivery, PublishOptions, RequestMeta, RpcServer, Subscription } from '../bus/types';
import { metrics, rpcOutcome, secondsSince } from './metrics';
import {
  extractContext,
  injectContext,
  inSpan,
  otelContext,
  ROOT_CONTEXT,
  SpanKind,
  startSpan,
  tracingEnabled,
  type Span,
} from './tracing';

/**
 * A service's view of the bus with its metrics and spans: RPC calls (client side), the requests it
 * serves, the events it publishes and consumes. Either transport is wrapped the same way; the
 * context crosses it as W3C trace context in RequestMeta.trace and in the events' publish options,
 * which the RabbitMQ transport carries as message headers.
 */
export class ObservedBus implements Bus {
  constructor(
    private readonly inner: Bus,
    private readonly service: string,
    private readonly maxAttempts: number,
  ) {}

  get kind(): Bus['kind'] {
    return this.inner.kind;
  }

  request: Bus['request'] = (operation, payload, meta, timeoutMs) =>
    this.call(operation, meta, (m) => this.inner.request(operation, payload, m, timeoutMs));

  requestRaw: Bus['requestRaw'] = (operation, payload, meta, timeoutMs) =>
    this.call(operation, meta, (m) => this.inner.requestRaw(operation, payload, m, timeoutMs));

  private async call<R extends { ok: boolean; status: number }>(
    operation: string,
    meta: RequestMeta,
    send: (meta: RequestMeta) => Promise<R>,
  ): Promise<R> {
    const started = performance.now();
    let outcome = 'failed';
    const span = tracingEnabled()
      ? startSpan(this.service, `call ${operation}`, SpanKind.CLIENT, otelContext.active(), { 'rpc.method': operation })
      : undefined;
    try {
      const reply = await send(span ? { ...meta, trace: injectContext(traceOf(span)) } : meta);
      outcome = rpcOutcome(reply);
      return reply;
    } catch (err) {
      if (err instanceof BusError) outcome = rpcOutcome(err);
      throw err;
    } finally {
      metrics.rpcClientDuration.labels(this.service, operation, outcome).observe(secondsSince(started));
      if (span) endRpcSpan(span, outcome);
    }
  }

  serve(service: string, operations: readonly string[], server: RpcServer): Promise<void> {
    const observed: RpcServer = async (operation, payload, meta) => {
      const started = performance.now();
      let outcome = 'failed';
      const parent = tracingEnabled() ? extractContext(meta.trace) : undefined;
      const span = parent
        ? startSpan(this.service, operation, SpanKind.SERVER, parent, { 'rpc.method': operation, 'request.id': meta.requestId })
        : undefined;
      try {
        const reply = span ? await inSpan(span, parent!, () => server(operation, payload, meta)) : await server(operation, payload, meta);
        outcome = rpcOutcome(reply);
        return reply;
      } finally {
        metrics.rpcHandlerDuration.labels(this.service, operation, outcome).observe(secondsSince(started));
        if (span && outcome !== 'ok') span.setAttribute('rpc.outcome', outcome);
      }
    };
    return this.inner.serve(service, operations, observed);
  }

  /** Continues the trace stored with the event's outbox row (opts.trace), not whatever is active here. */
  async publish(event: EventEnvelope, opts: PublishOptions = {}): Promise<void> {
    const span = tracingEnabled()
      ? startSpan(this.service, `publish ${event.type}`, SpanKind.PRODUCER, extractContext(opts.trace), eventAttributes(event))
      : undefined;
    try {
      if (span) {
        const ctx = traceOf(span);
        // The in-process transport delivers within this context; RabbitMQ carries opts.trace as headers.
        await otelContext.with(ctx, () => this.inner.publish(event, { ...opts, trace: injectContext(ctx) }));
      } else {
        await this.inner.publish(event, opts);
      }
      metrics.eventsPublished.labels(this.service, 'ok').inc();
    } catch (err) {
      metrics.eventsPublished.labels(this.service, 'failed').inc();
      if (span) span.recordException(err as Error);
      throw err;
    } finally {
      span?.end();
    }
  }

  subscribe(sub: Subscription): Promise<void> {
    const handler = async (event: EventEnvelope, delivery: EventDelivery) => {
      const started = performance.now();
      let outcome = 'ok';
      const span = tracingEnabled() ? this.consumerSpan(sub.name, event, delivery) : undefined;
      try {
        await (span ? inSpan(span.span, span.parent, () => sub.handler(event, delivery)) : sub.handler(event, delivery));
      } catch (err) {
        outcome = delivery.attempt >= this.maxAttempts ? 'dead' : 'retry';
        if (outcome === 'dead') metrics.eventsDeadLettered.labels(this.service, sub.name).inc();
        throw err;
      } finally {
        metrics.eventsConsumed.labels(this.service, sub.name, outcome).inc();
        metrics.eventHandlerDuration.labels(this.service, sub.name).observe(secondsSince(started));
      }
    };
    return this.inner.subscribe({ ...sub, handler });
  }

  /**
   * A child of the producer's span: from the delivery's trace context (RabbitMQ headers), else, in
   * process, the context the publication was made in.
   */
  private consumerSpan(consumer: string, event: EventEnvelope, delivery: EventDelivery): { span: Span; parent: Context } {
    const parent = delivery.trace ? extractContext(delivery.trace) : this.inner.kind === 'memory' ? otelContext.active() : ROOT_CONTEXT;
    const span = startSpan(this.service, `consume ${event.type}`, SpanKind.CONSUMER, parent, {
      ...eventAttributes(event),
      'messaging.consumer.group.name': consumer,
      'messaging.delivery.attempt': delivery.attempt,
    });
    return { span, parent };
  }

  addRoutes(subscription: string, types: readonly string[]): Promise<void> {
    return this.inner.addRoutes(subscription, types);
  }

  setRoutes(subscription: string, types: readonly string[]): Promise<void> {
    return this.inner.setRoutes(subscription, types);
  }

  stopConsuming(): Promise<void> {
    return this.inner.stopConsuming();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The bus as a service sees it: observed, unless it is observed already. */
export function observeBus(bus: Bus, service: string, maxAttempts: number): Bus {
  return bus instanceof ObservedBus ? bus : new ObservedBus(bus, service, maxAttempts);
}

/** The active context with the span in it: what its children and the trace context sent along continue. */
function traceOf(span: Span): Context {
  return trace.setSpan(otelContext.active(), span);
}

function endRpcSpan(span: Span, outcome: string): void {
  if (outcome !== 'ok') {
    span.setAttribute('rpc.outcome', outcome);
    if (outcome !== 'refused') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  }
  span.end();
}

function eventAttributes(event: EventEnvelope) {
  return { 'messaging.system': 'rabbitmq', 'messaging.destination.name': event.type, 'messaging.message.id': event.id };
}
