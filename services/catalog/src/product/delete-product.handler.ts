import { catalog } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { releaseSku } from '../sku/sku.registry';
import { toProductRecord } from './product.record';
import { findLiveProduct, loadProductView } from './product.repository';

/**
 * Soft delete: the product and its variants leave lists and lookups and free their SKUs; stock
 * quantities and moves stay as history.
 */
export const deleteProductHandler = handler(catalog.deleteProduct, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const current = await findLiveProduct(trx, ctx.orgId, req.product_id, { lock: true });
    // The record as it was, at the version its delete makes.
    const record = { ...toProductRecord(await loadProductView(trx, ctx.orgId, current.id)), version: current.version + 1 };
    const variants: Array<{ id: number }> = await trx('variants')
      .where({ parent_product_id: current.id })
      .whereNull('deleted_at')
      .select('id');
    await releaseSku(trx, { kind: 'product', id: current.id });
    for (const v of variants) await releaseSku(trx, { kind: 'variant', id: v.id });
    await trx('variants').where({ parent_product_id: current.id }).whereNull('deleted_at').update({ deleted_at: trx.fn.now() });
    await trx('products')
      .where({ id: current.id })
      .update({ deleted_at: trx.fn.now(), updated_by: ctx.userId ?? null, version: trx.raw('version + 1') });
    await recordEvent(trx, catalog.productDeleted.type, ctx.orgId, record);
    return { message: 'Product deleted successfully' };
  });
});
