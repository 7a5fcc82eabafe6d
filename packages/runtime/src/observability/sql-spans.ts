import { context, trace, type Span } from '@opentelemetry/api';
import { ATTR_DB_QUERY_TEXT, ATTR_DB_SYSTEM_NAME, DB_SYSTEM_NAME_VALUE_POSTGRESQL } from '@opentelemetry/semantic-conventions';
import type { Knex } from '../db';
import type { KnexQueryEvent } from '../knex-driver';
import { markFailed, SpanKind, startSpan, tracingEnabled } from './tracing';

/** Pools listened to already: a service started again on the same pool must not double its spans. */
const traced = new WeakSet<Knex>();

/**
 * A span per SQL statement run inside a traced request, from knex's query events (no require hooks
 * needed). Statements outside any span (pollers, purges, scrapes) make none, so they do not start
 * traces of their own every second. Nothing is listened to while tracing is off.
 */
export function traceQueries(db: Knex, service: string): void {
  if (!tracingEnabled() || traced.has(db)) return;
  traced.add(db);
  const open = new Map<string, Span>();
  db.on('query', (q: KnexQueryEvent) => {
    if (!q.__knexQueryUid || !trace.getSpan(context.active())) return;
    const sql = q.sql ?? '';
    open.set(
      q.__knexQueryUid,
      startSpan(service, sqlSpanName(sql), SpanKind.CLIENT, context.active(), {
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_QUERY_TEXT]: sql,
      }),
    );
  });
  const end = (q: KnexQueryEvent, err?: unknown) => {
    const span = q.__knexQueryUid ? open.get(q.__knexQueryUid) : undefined;
    if (!span) return;
    open.delete(q.__knexQueryUid!);
    if (err) markFailed(span, err);
    span.end();
  };
  db.on('query-response', (_rows: unknown, q: KnexQueryEvent) => end(q));
  db.on('query-error', (err: unknown, q: KnexQueryEvent) => end(q, err));
}

/** `SELECT outbox`, `INSERT partners`: the statement's verb and first table, never its values. */
export function sqlSpanName(sql: string): string {
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update|join)\s+"?(?:\w+"?\.)?"?(\w+)"?/i.exec(sql)?.[1];
  return table ? `${verb} ${table}` : verb;
}
