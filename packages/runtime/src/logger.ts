import pino from 'pino';
import { traceLogFields } from './observability/tracing';

export type Logger = pino.Logger;

export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  // Lines written inside a traced span carry its trace_id and span_id (nothing while tracing is off).
  return pino({ name: service, level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime, mixin: traceLogFields });
}
