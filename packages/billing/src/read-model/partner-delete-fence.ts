import { AppError, type Knex } from '@bo/runtime';

/**
 * A partner's delete (in the partners service) and a new document for that partner (in sales or
 * invoicing) cannot both win. Partners asks each document service for the partner's open documents
 * with `fence_ms`; a service that has none fences the partner for that long
 * (`partner_delete_fences`), in the transaction that counted. Counting takes the partner's fence lock
 * exclusive; creating a document takes it shared, in the create's transaction, and is refused while
 * a fence stands. So a document either committed before the count (it is counted, and the delete is
 * refused) or meets the fence (it is refused, retryably). Partners commits the delete within the
 * fence or not at all, so once a fence has passed the delete either happened or never will: the
 * next create that finds it asks partners, and records the deletion or lifts the fence.
 */

/** The partner's fence lock: one advisory lock per schema, organization and partner. */
const LOCK_KEY = `hashtextextended('partner_delete_fence:' || current_schema() || ':' || ?::int || ':' || ?::int, 0)`;

export function partnerBeingDeleted(partnerId: number): AppError {
  return new AppError(
    503,
    'service_unavailable',
    `Partner ${partnerId} is being deleted; nothing was written. Retry shortly: the partner is then either gone (not_found) or still there`,
  );
}

/**
 * Counts the partner's open documents (`count`, given the transaction) under its fence lock and,
 * when asked for a fence (`fenceMs`) and none are open, fences it until `fenceMs` from now.
 */
export async function countOpenUnderFence<T extends { open_documents: number; active_contracts: number }>(
  db: Knex,
  orgId: number,
  partnerId: number,
  fenceMs: number | undefined,
  count: (db: Knex) => Promise<T>,
): Promise<T> {
  if (fenceMs === undefined) return count(db);
  return db.transaction(async (trx) => {
    await trx.raw(`select pg_advisory_xact_lock(${LOCK_KEY})`, [orgId, partnerId]);
    // Read committed: each count sees every document committed before the lock was granted.
    const answer = await count(trx);
    if (answer.open_documents === 0 && answer.active_contracts === 0) {
      await trx.raw(
        `insert into partner_delete_fences (org_id, partner_id, fenced_until) values (?, ?, now() + make_interval(secs => ?))
         on conflict (org_id, partner_id) do update set fenced_until = excluded.fenced_until`,
        [orgId, partnerId, fenceMs / 1000],
      );
    }
    return answer;
  });
}

/**
 * In a create's transaction, before it writes: refused while the partner is fenced. One round trip,
 * to the schema's `partner_fenced` function (createPartnerDeleteFences), which takes the lock and
 * then probes in two statements: a statement's snapshot is taken when it starts, so a fence
 * committed while it waited for the lock would be invisible to a select in the same statement, and
 * a PL/pgSQL function's next statement takes a new one.
 */
export async function assertNotFenced(trx: Knex.Transaction, orgId: number, partnerId: number): Promise<void> {
  const { rows } = await trx.raw<{ rows: Array<{ fenced: boolean }> }>('select partner_fenced(?::int, ?::int) as fenced', [
    orgId,
    partnerId,
  ]);
  if (rows[0]?.fenced) throw partnerBeingDeleted(partnerId);
}

/** Lifts a fence that has passed (the partner lives on); one set again meanwhile stays. */
export async function liftPassedFence(db: Knex, orgId: number, partnerId: number): Promise<void> {
  await db('partner_delete_fences').where({ org_id: orgId, partner_id: partnerId }).whereRaw('fenced_until <= now()').delete();
}

/** The fence table, created by each document service's migrations. */
export async function createPartnerDeleteFences(trx: Knex.Transaction, schema: string): Promise<void> {
  await trx.schema.withSchema(schema).createTable('partner_delete_fences', (t) => {
    t.integer('org_id').notNullable();
    t.integer('partner_id').notNullable();
    t.timestamp('fenced_until', { useTz: true }).notNullable();
    t.primary(['org_id', 'partner_id']);
  });
}

/**
 * The schema's `partner_fenced(org_id, partner_id)`: takes the partner's fence lock shared, then
 * answers whether a fence stands (assertNotFenced). The lock key is the one countOpenUnderFence
 * takes exclusive; `current_schema()` is the caller's, the service's own schema.
 */
export async function createPartnerFenceCheck(trx: Knex.Transaction, schema: string): Promise<void> {
  await trx.raw(
    `create or replace function ??.partner_fenced(org integer, partner integer) returns boolean
       language plpgsql volatile as $fence$
     begin
       perform pg_advisory_xact_lock_shared(hashtextextended('partner_delete_fence:' || current_schema() || ':' || org || ':' || partner, 0));
       return exists (select 1 from ??.partner_delete_fences f where f.org_id = org and f.partner_id = partner);
     end
     $fence$`,
    [schema, schema],
  );
}
