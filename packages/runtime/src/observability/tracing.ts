import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export { SpanKind, type Span };

/** W3C trace context as it travels: AMQP headers, and the outbox row of an event. */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/**
 * The one place tracing is set up. Off (every hook a no-op) until startTracing is given an OTLP
 * endpoint or, in tests, an exporter. Each service gets its own tracer provider with its own
 * `service.name` resource, all feeding the same processor, so the single-process mode still shows
 * four services; context lives in AsyncLocalStorage and crosses processes as W3C trace context.
 */
let processor: SpanProcessor | undefined;
let contextManager: AsyncLocalStorageContextManager | undefined;
const providers = new Map<string, BasicTracerProvider>();
const tracers = new Map<string, Tracer>();

export function tracingEnabled(): boolean {
  return processor !== undefined;
}

/** The OTLP/HTTP traces URL for a base endpoint, as the OTLP specification derives it. */
export function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/** Turns tracing on for this process; does nothing without an endpoint or exporter, or when it is on already. */
export function startTracing(opts: { endpoint?: string; exporter?: SpanExporter }): boolean {
  if (processor) return true;
  if (opts.exporter) processor = new SimpleSpanProcessor(opts.exporter);
  else if (opts.endpoint) processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpTracesUrl(opts.endpoint) }));
  else return false;
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return true;
}

/** Exports what is buffered and turns tracing off. */
export async function stopTracing(): Promise<void> {
  const p = processor;
  if (!p) return;
  processor = undefined;
  tracers.clear();
  providers.clear();
  await p.shutdown().catch(() => undefined);
  context.disable();
  propagation.disable();
  contextManager = undefined;
}

/** Exports what is buffered, keeping tracing on. */
export async function flushTracing(): Promise<void> {
  await processor?.forceFlush().catch(() => undefined);
}

/** The tracer of a service (its spans carry `service.name` as resource and attribute). */
export function tracerOf(service: string): Tracer {
  let tracer = tracers.get(service);
  if (!tracer) {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }),
      spanProcessors: processor ? [processor] : [],
    });
    providers.set(service, provider);
    tracer = provider.getTracer('@bo/runtime');
    tracers.set(service, tracer);
  }
  return tracer;
}

/** Starts a span of the service under the given parent context (the active one by default). */
export function startSpan(
  service: string,
  name: string,
  kind: SpanKind,
  parent: Context = context.active(),
  attributes?: Attributes,
): Span {
  return tracerOf(service).startSpan(name, { kind, attributes: { [ATTR_SERVICE_NAME]: service, ...attributes } }, parent);
}

/** Runs work with the span active and ends it, marking it failed when the work throws. */
export async function inSpan<T>(span: Span, parent: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (err) {
    markFailed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Runs work with the span active, leaving its end to the caller (the gateway ends it with the response). */
export function withActiveSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}

export function markFailed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** The trace context to send along from a context; undefined when it holds no span (or tracing is off). */
export function injectContext(ctx: Context): TraceContext | undefined {
  if (!processor) return undefined;
  const carrier: { traceparent?: string; tracestate?: string } = {};
  propagation.inject(ctx, carrier);
  if (!carrier.traceparent) return undefined;
  return carrier.tracestate ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate } : { traceparent: carrier.traceparent };
}

/** The context a received trace context continues; the root when none came. */
export function extractContext(tc: TraceContext | undefined): Context {
  if (!processor || !tc?.traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, tc);
}

/** The active trace context, to store with an outbox row; undefined when no span is active. */
export function currentTraceContext(): TraceContext | undefined {
  return processor && trace.getSpan(context.active()) ? injectContext(context.active()) : undefined;
}

/** A trace context from message headers (or outbox columns), if they carry one. */
export function traceContextFrom(source: Readonly<Record<string, unknown>> | undefined): TraceContext | undefined {
  const traceparent = source?.['traceparent'];
  if (typeof traceparent !== 'string' || !traceparent) return undefined;
  const tracestate = source?.['tracestate'];
  return typeof tracestate === 'string' && tracestate ? { traceparent, tracestate } : { traceparent };
}

/**
 * Runs work outside any trace: background work kicked from inside a request (the outbox relay)
 * must not be counted as part of that request; its publications continue their rows' traces.
 */
export function outsideTrace<T>(work: () => T): T {
  return processor ? context.with(ROOT_CONTEXT, work) : work();
}

/**
 * pino mixin: `trace_id` and `span_id` of the active span on every log line written inside one.
 * A new object each time: pino merges the line's own fields into it.
 */
export function traceLogFields(): Record<string, string> {
  const span = processor ? trace.getSpan(context.active()) : undefined;
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export { context as otelContext, ROOT_CONTEXT };
