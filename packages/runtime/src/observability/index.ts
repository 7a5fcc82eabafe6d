export { metrics, metricsRegistry, renderMetrics, rpcOutcome, secondsSince, watchDatabase } from './metrics';
export { serveMetrics, type MetricsServer } from './metrics-server';
export { ObservedBus, observeBus } from './observed-bus';
export { observeService } from './observe-service';
export { sqlSpanName, traceQueries } from './sql-spans';
export {
  currentTraceContext,
  extractContext,
  flushTracing,
  inSpan,
  injectContext,
  markFailed,
  otelContext,
  otlpTracesUrl,
  outsideTrace,
  SpanKind,
  startSpan,
  startTracing,
  stopTracing,
  traceContextFrom,
  traceLogFields,
  tracingEnabled,
  type Span,
  withActiveSpan,
  type TraceContext,
} from './tracing';
