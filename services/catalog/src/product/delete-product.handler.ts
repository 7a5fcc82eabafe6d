import { catalog } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { releaseSku } from '../sku/sku.registry';
import { toProductRecord } from './product.record';
import { findLiveProduct, liveVariantIdsOf, loadProductView, markProductDeleted, markVariantsDeleted } from './product.repository';

/**
 * Soft delete: the product and its variants leave lists and lookups and free their SKUs; stock
 * quantities and moves stay as history.
 */
export const deleteProductHandler = handler(catalog.deleteProduct, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const current = await findLiveProduct(trx, ctx.orgId, req.product_id, { lock: true });
    // The record as it was, at the version its delete makes.
    const record = { ...toProductRecord(await loadProductView(trx, ctx.orgId, current.id)), version: current.version + 1 };
    const variantIds = await liveVariantIdsOf(trx, current.id);
    await releaseSku(trx, { kind: 'product', id: current.id });
    for (const id of variantIds) await releaseSku(trx, { kind: 'variant', id });
    await markVariantsDeleted(trx, current.id);
    await markProductDeleted(trx, current.id, ctx.userId ?? null);
    await recordEvent(trx, catalog.productDeleted, ctx.orgId, record);
    return { message: 'Product deleted successfully' };
  });
});
