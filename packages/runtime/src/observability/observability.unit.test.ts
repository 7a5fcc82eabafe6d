import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { EventEnvelope } from '@bo/contracts';
import { BusError } from '../errors';
import { MemoryBus } from '../bus/memory';
import { createLogger } from '../logger';
import { metricsRegistry, renderMetrics, rpcOutcome } from './metrics';
import { observeBus } from './observed-bus';
import { sqlSpanName } from './sql-spans';
import {
  currentTraceContext,
  extractContext,
  injectContext,
  otlpTracesUrl,
  outsideTrace,
  SpanKind,
  startSpan,
  startTracing,
  stopTracing,
  traceContextFrom,
  traceLogFields,
  tracingEnabled,
  withActiveSpan,
} from './tracing';
import { waitUntil } from '@bo/testkit';

const log = createLogger('test', 'silent');

/** The value of one sample of a metric in the registry, by its labels. */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === name.replace(/_(count|sum|bucket)$/, ''));
  const values = (metric?.values ?? []) as Array<{ value: number; labels: Record<string, unknown>; metricName?: string }>;
  const found = values.find(
    (v) => (v.metricName ?? metric?.name) === name && Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val),
  );
  return found?.value ?? 0;
}

describe('pure parts', () => {
  it('names the OTLP traces URL of a base endpoint', () => {
    expect(otlpTracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
  });

  it('reads a trace context from headers or outbox columns only when a traceparent is there', () => {
    expect(traceContextFrom(undefined)).toBeUndefined();
    expect(traceContextFrom({ traceparent: null, tracestate: null })).toBeUndefined();
    expect(traceContextFrom({ traceparent: '00-a-b-01' })).toEqual({ traceparent: '00-a-b-01' });
    expect(traceContextFrom({ traceparent: '00-a-b-01', tracestate: 'k=v' })).toEqual({ traceparent: '00-a-b-01', tracestate: 'k=v' });
  });

  it('turns RPC answers and transport failures into bounded outcomes', () => {
    expect(rpcOutcome({ ok: true, status: 200 })).toBe('ok');
    expect(rpcOutcome({ ok: false, status: 400 })).toBe('refused');
    expect(rpcOutcome({ ok: false, status: 503 })).toBe('failed');
    expect(rpcOutcome(new BusError('timeout', 'late'))).toBe('timeout');
  });

  it('names SQL spans by verb and table, never by values', () => {
    expect(sqlSpanName('insert into "outbox" ("event_id") values ($1)')).toBe('INSERT outbox');
    expect(sqlSpanName('select id from partners where org_id = $1')).toBe('SELECT partners');
    expect(sqlSpanName('update "sales"."quotations" set "status" = $1')).toBe('UPDATE quotations');
    expect(sqlSpanName('select 1')).toBe('SELECT');
  });

  it('does nothing while tracing is off', () => {
    expect(tracingEnabled()).toBe(false);
    expect(currentTraceContext()).toBeUndefined();
    expect(traceLogFields()).toEqual({});
  });

  it('renders the named metrics in the Prometheus text format', async () => {
    const { contentType, body } = await renderMetrics();
    expect(contentType).toMatch(/^text\/plain/);
    for (const name of [
      'bo_http_request_duration_seconds',
      'bo_rpc_client_duration_seconds',
      'bo_rpc_handler_duration_seconds',
      'bo_events_consumed_total',
      'bo_outbox_pending_events',
      'bo_outbox_oldest_pending_age_seconds',
      'bo_event_dead_letters',
      'bo_events_dead_lettered_total',
      'bo_db_pool_connections',
      'process_cpu_user_seconds_total',
    ]) {
      expect(body).toContain(`# TYPE ${name}`);
    }
  });
});

describe('traced and measured bus', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => expect(startTracing({ exporter })).toBe(true));
  afterAll(() => stopTracing());
  beforeEach(() => exporter.reset());

  const spans = () => exporter.getFinishedSpans();
  const named = (name: string): ReadableSpan => {
    const span = spans().find((s) => s.name === name);
    if (!span)
      throw new Error(
        `no span ${name} among ${spans()
          .map((s) => s.name)
          .join(', ')}`,
      );
    return span;
  };
  const serviceOf = (s: ReadableSpan) => s.resource.attributes['service.name'];

  it('carries the trace context as W3C traceparent and back', () => {
    const span = startSpan('a', 'root', SpanKind.INTERNAL);
    const tc = withActiveSpan(span, () => currentTraceContext());
    span.end();
    expect(tc?.traceparent).toMatch(new RegExp(`^00-${span.spanContext().traceId}-${span.spanContext().spanId}-01$`));
    const child = startSpan('b', 'child', SpanKind.INTERNAL, extractContext(tc));
    child.end();
    expect(child.spanContext().traceId).toBe(span.spanContext().traceId);
    expect(injectContext(extractContext(undefined))).toBeUndefined();
  });

  it('puts trace_id and span_id on log lines written inside a span, and none outside a trace', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('a', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const span = startSpan('a', 'logged', SpanKind.INTERNAL);
    withActiveSpan(span, () => {
      logger.info({ detail: 1 }, 'inside');
      outsideTrace(() => logger.info('outside'));
    });
    logger.info({ detail: 2 }, 'after');
    span.end();
    const { traceId, spanId } = span.spanContext();
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'inside', detail: 1, trace_id: traceId, span_id: spanId }),
      expect.not.objectContaining({ trace_id: expect.anything() }),
      expect.not.objectContaining({ trace_id: expect.anything() }),
    ]);
    expect(lines[2]).toMatchObject({ msg: 'after', detail: 2 });
  });

  it('makes one trace of an RPC: client span in the caller, server span in the callee, and counts both', async () => {
    const memory = new MemoryBus({ log });
    const callee = observeBus(memory, 'callee', 3);
    const caller = observeBus(memory, 'caller', 3);
    await callee.serve('callee', ['callee.get', 'callee.refuse'], async (op) =>
      op === 'callee.get'
        ? { ok: true, status: 200, body: { traced: currentTraceContext() !== undefined } }
        : { ok: false, status: 400, code: 'validation_failed', message: 'no' },
    );
    const beforeOk = await sample('bo_rpc_client_duration_seconds_count', { service: 'caller', operation: 'callee.get', outcome: 'ok' });
    const beforeRefused = await sample('bo_rpc_handler_duration_seconds_count', {
      service: 'callee',
      operation: 'callee.refuse',
      outcome: 'refused',
    });

    const root = startSpan('caller', 'request', SpanKind.SERVER);
    const reply = await withActiveSpan(root, () => caller.request('callee.get', {}, { orgId: 1, requestId: 'r1' }, 1000));
    await caller.request('callee.refuse', {}, { orgId: 1, requestId: 'r2' }, 1000);
    root.end();

    expect(reply).toEqual({ ok: true, status: 200, body: { traced: true } });
    const client = named('call callee.get');
    const server = named('callee.get');
    expect(serviceOf(client)).toBe('caller');
    expect(serviceOf(server)).toBe('callee');
    expect(client.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(server.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(await sample('bo_rpc_client_duration_seconds_count', { service: 'caller', operation: 'callee.get', outcome: 'ok' })).toBe(
      beforeOk + 1,
    );
    expect(
      await sample('bo_rpc_handler_duration_seconds_count', { service: 'callee', operation: 'callee.refuse', outcome: 'refused' }),
    ).toBe(beforeRefused + 1);
    await memory.close();
  });

  it("publishes an event in the trace it was recorded in, not the publisher's own, and its consumer continues it", async () => {
    const memory = new MemoryBus({ log, maxAttempts: 2, retryBaseMs: 1 });
    const producer = observeBus(memory, 'producer', 2);
    const consumer = observeBus(memory, 'consumer', 2);
    const seen: Array<string | undefined> = [];
    let failuresLeft = 2;
    await consumer.subscribe({
      name: 'consumer.things',
      events: ['thing.#'],
      handler: async (event) => {
        seen.push(currentTraceContext()?.traceparent);
        if (event.type === 'thing.broken' && failuresLeft-- > 0) throw new Error('broken');
      },
    });
    const recorded = startSpan('producer', 'handler', SpanKind.SERVER);
    const stored = withActiveSpan(recorded, () => currentTraceContext());
    recorded.end();
    const deadBefore = await sample('bo_events_dead_lettered_total', { service: 'consumer', consumer: 'consumer.things' });
    const okBefore = await sample('bo_events_consumed_total', { service: 'consumer', consumer: 'consumer.things', outcome: 'ok' });

    const event: EventEnvelope = { id: '00000000-0000-4000-8000-000000000001', type: 'thing.done', occurred_at: '', org_id: 1, data: {} };
    // The relay's own context is another trace: the publication must not join it.
    const relay = startSpan('producer', 'relay pass', SpanKind.INTERNAL);
    await withActiveSpan(relay, () => producer.publish(event, { trace: stored }));
    relay.end();
    await waitUntil(() => seen.length === 1);
    await producer.publish({ ...event, id: '00000000-0000-4000-8000-000000000002', type: 'thing.broken' });
    await waitUntil(() => seen.length === 3);
    await waitUntil(() => spans().filter((s) => s.name === 'consume thing.broken').length === 2);

    const publish = named('publish thing.done');
    const consume = named('consume thing.done');
    expect(publish.spanContext().traceId).toBe(recorded.spanContext().traceId);
    expect(publish.parentSpanContext?.spanId).toBe(recorded.spanContext().spanId);
    expect(publish.spanContext().traceId).not.toBe(relay.spanContext().traceId);
    expect(consume.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(serviceOf(consume)).toBe('consumer');
    expect(consume.kind).toBe(SpanKind.CONSUMER);
    expect(await sample('bo_events_consumed_total', { service: 'consumer', consumer: 'consumer.things', outcome: 'ok' })).toBe(
      okBefore + 1,
    );
    expect(await sample('bo_events_dead_lettered_total', { service: 'consumer', consumer: 'consumer.things' })).toBe(deadBefore + 1);
    expect(
      await sample('bo_events_consumed_total', { service: 'consumer', consumer: 'consumer.things', outcome: 'retry' }),
    ).toBeGreaterThanOrEqual(1);
    await memory.close();
  });
});
