import { isUniqueViolation, type Knex, type StorePart } from '@bo/runtime';
import { skuKey } from './sku';
import { skuRefusals } from './sku-refusals';

export type SkuOwner = { kind: 'product' | 'variant'; id: number };

/**
 * Claims a SKU for a product or variant in the organization. The insert runs in a savepoint so a
 * collision (including one with a concurrent transaction) becomes a clean 400 and the caller's
 * transaction stays usable until it rolls back.
 */
export async function claimSku(trx: Knex.Transaction, orgId: number, sku: string | null, owner: SkuOwner): Promise<void> {
  const key = skuKey(sku);
  if (key === null) return;
  try {
    await trx.transaction(async (sp) => {
      await sp('skus').insert({ org_id: orgId, sku_key: key, owner_kind: owner.kind, owner_id: owner.id });
    });
  } catch (err) {
    if (isUniqueViolation(err, 'skus_pkey')) throw skuRefusals.skuTaken(sku?.trim() ?? '');
    throw err;
  }
}

/**
 * claimSku as a part of a one-statement write (storeAlone), for the owner the CTE `ownerFrom` of
 * that statement answers (its `id`): none for no SKU. A key held already, by a committed article
 * or one in flight, fails the whole statement (the primary key), and the usual way answers it.
 */
export function claimSkuPart(orgId: number, sku: string | null, kind: SkuOwner['kind'], ownerFrom: string): StorePart | null {
  const key = skuKey(sku);
  if (key === null) return null;
  return {
    sql: `insert into skus (org_id, sku_key, owner_kind, owner_id) select ?, ?, ?, o.id from ${ownerFrom} o`,
    bindings: [orgId, key, kind],
  };
}

/** Frees whatever SKU the owner holds, so a deleted or renamed article no longer blocks it. */
export async function releaseSku(trx: Knex.Transaction, owner: SkuOwner): Promise<void> {
  await trx('skus').where({ owner_kind: owner.kind, owner_id: owner.id }).delete();
}

/**
 * Moves an owner from its SKU to another. Such moves of one organization take turns (advisory
 * lock): two edits swapping SKUs would each free one key and then wait on the key the other just
 * freed, a deadlock Postgres breaks with an error. Taking turns, each finds its new SKU still held
 * and is a clean duplicate, as it would be run one after the other. Creates only claim, so they
 * never close such a cycle and need no turn.
 */
export async function moveSku(trx: Knex.Transaction, orgId: number, sku: string | null, owner: SkuOwner): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`catalog:sku-moves:${orgId}`]);
  await releaseSku(trx, owner);
  await claimSku(trx, orgId, sku, owner);
}
