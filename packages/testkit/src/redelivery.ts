import { randomUUID } from 'node:crypto';
import type { RpcReply } from '@bo/contracts';
import { type Knex, KEY_IN_USE_REPLY } from '@bo/runtime';
import type { TestService } from './service';

/** Bookkeeping that a command may touch without it being a second effect. */
const BOOKKEEPING = new Set(['idempotency', 'inbox', 'schema_migrations', 'event_deliveries', 'event_dead_letters']);

/**
 * Every row of every table of the service's schema (outbox included: a second event is a second
 * effect), as one comparable value per table.
 */
export async function schemaSnapshot(db: Knex, schema: string): Promise<Record<string, { rows: number; digest: string }>> {
  const tables: Array<{ table_name: string }> = (
    await db.raw(
      `select table_name from information_schema.tables where table_schema = ? and table_type = 'BASE TABLE' order by table_name`,
      [schema],
    )
  ).rows;
  const snapshot: Record<string, { rows: number; digest: string }> = {};
  for (const { table_name: table } of tables) {
    if (BOOKKEEPING.has(table)) continue;
    // The relay marks outbox rows published in the background; which events exist is what counts.
    const source =
      table === 'outbox' ? db.raw('(select event_id, type, envelope from ??.outbox)', [schema]) : db.raw('??.??', [schema, table]);
    const { rows } = await db.raw(
      `select count(*)::int as rows, coalesce(md5(string_agg(t::text, '|' order by t::text)), '') as digest from ? t`,
      [source],
    );
    snapshot[table] = rows[0];
  }
  return snapshot;
}

export interface Redelivered {
  first: RpcReply;
  again: RpcReply;
}

type Snapshot = Awaited<ReturnType<typeof schemaSnapshot>>;

/**
 * Delivers one write command, then the very same command again (same operation key, body and
 * meta), as RabbitMQ does when a service dies after its commit and before its ack. Asserts nothing
 * itself; the caller checks `first`, and that `again` equals it with the schema unchanged.
 */
export async function deliverTwice(
  svc: TestService,
  operation: string,
  payload: Record<string, unknown>,
  opts: { orgId?: number } = {},
): Promise<Redelivered & { afterFirst: Snapshot; afterAgain: Snapshot }> {
  const send = sameCommand(svc, operation, payload, opts.orgId);
  const first = await send();
  const afterFirst = await schemaSnapshot(svc.db, svc.schema);
  const again = await send();
  const afterAgain = await schemaSnapshot(svc.db, svc.schema);
  return { first, again, afterFirst, afterAgain };
}

/**
 * Delivers the same command twice at once: a redelivery racing the original, whose channel died
 * while its handler still ran. A twin that arrived while the other held the key is answered 409
 * "still in progress" (idempotency.ts, holdKey); it is delivered again once the other answered, as
 * the client's retry would be, and `first` and `again` are the answers that settled. The caller
 * checks they agree and counts the effect itself.
 */
export async function deliverTwins(
  svc: TestService,
  operation: string,
  payload: Record<string, unknown>,
  opts: { orgId?: number } = {},
): Promise<Redelivered> {
  const send = sameCommand(svc, operation, payload, opts.orgId);
  const [first, again] = await Promise.all([send(), send()]);
  const held = (reply: RpcReply) => !reply.ok && reply.status === KEY_IN_USE_REPLY.status && reply.code === 'idempotency_conflict';
  const settled = (reply: RpcReply) => (held(reply) ? send() : reply);
  return { first: await settled(first), again: await settled(again) };
}

function sameCommand(svc: TestService, operation: string, payload: Record<string, unknown>, orgId = 1): () => Promise<RpcReply> {
  const meta = { operationKey: randomUUID(), requestId: randomUUID() };
  return () => svc.call(operation, payload, orgId, meta);
}
