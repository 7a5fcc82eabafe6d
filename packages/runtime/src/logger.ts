import pino from 'pino';
import { traceLogFields, tracingEnabled } from './observability/tracing';

export type Logger = pino.Logger;

/** `destination` is for tests that read the lines; stdout otherwise. */
export function createLogger(
  service: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
  destination?: pino.DestinationStream,
): Logger {
  // With tracing on (it starts before the loggers are made), lines written inside a span carry its trace_id and span_id.
  const mixin = tracingEnabled() ? traceLogFields : undefined;
  return pino({ name: service, level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime, mixin }, destination);
}
