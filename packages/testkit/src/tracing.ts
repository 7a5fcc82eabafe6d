import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing, stopTracing, tracingEnabled } from '@bo/runtime';

export type { ReadableSpan };

export interface SpanCollector {
  /** Every span finished so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** Turns tracing off again. */
  stop(): Promise<void>;
}

/** Turns tracing on for this test process, keeping every finished span in memory; before anything starts. */
export function collectSpans(): SpanCollector {
  if (tracingEnabled()) throw new Error('tracing is on already in this process');
  const exporter = new InMemorySpanExporter();
  startTracing({ exporter });
  return { spans: () => exporter.getFinishedSpans(), stop: () => stopTracing() };
}
