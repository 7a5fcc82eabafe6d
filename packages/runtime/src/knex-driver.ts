import PgDialect from 'knex/lib/dialects/postgres/index.js';
import type { Knex } from 'knex';

/**
 * Everything the runtime assumes of knex's and node-postgres's internals, in one place: the classes,
 * fields and statement texts that are not their public API. prepared.ts (named statements, BEGIN and
 * COMMIT sent with statements), statement.ts (statements without the query builder), transaction.ts
 * (flat nested transactions) and observability/sql-spans.ts use them only through this module, and
 * packages/runtime/test/knex-driver.int.test.ts checks each assumption against the installed
 * versions over a real database, so an upgrade that breaks one fails there, by name, not somewhere
 * in a write path.
 */
export { PgDialect };

/** A statement as knex hands it to its client, and as the client answers it once run. */
export type KnexQuery = Parameters<PgDialect['_query']>[1];

/** The fields knex and node-postgres keep on a pooled connection that the runtime reads or sets. */
export interface KnexConnection {
  /** Set by knex while the connection runs a transaction. */
  __knexTxId?: string;
  /** knex's mark of a connection the pool must destroy rather than hand out again. */
  __knex__disposed?: unknown;
  /** node-postgres writes each query at once, without waiting for the one before (createDb turns it on). */
  pipeline?: boolean;
  query(sql: string): Promise<unknown>;
  /** node-postgres's protocol writer, whose socket is corked while several statements are written. */
  connection?: { stream?: { cork(): void; uncork(): void } };
}

/** What knex's client offers beneath its query builder and runner. */
export interface KnexClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
  query: (this: unknown, connection: unknown, query: KnexQuery | string) => Promise<KnexQuery>;
  positionBindings(sql: string): string;
  emit(event: string, ...args: unknown[]): boolean;
}

/** The client beneath a pool or a transaction. */
export function clientOf(db: Knex): KnexClient {
  const client: unknown = db.client;
  return client as KnexClient;
}

/** A query event's data (`db.on('query' | 'query-response' | 'query-error')`): its id pairs them. */
export interface KnexQueryEvent {
  __knexQueryUid?: string;
  sql?: string;
}

/** The texts knex opens and ends a default transaction with (one with an isolation level or read-only begins otherwise). */
export const KNEX_BEGIN = 'BEGIN;';
export const KNEX_COMMIT = 'COMMIT;';
export const KNEX_ROLLBACK = 'ROLLBACK';
