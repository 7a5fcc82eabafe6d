import { catalog } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { handler, recordEvent, type Knex } from '@bo/runtime';
import { productRefusals } from './product-refusals';
import { findCategory } from '../category/category.repository';
import { ensureDefaultLocation, type LocationJoinRow } from '../location/location.repository';
import { moveSku } from '../sku/sku.registry';
import { cleanSku, skuKey } from '../sku/sku';
import { defaultLocationTarget } from '../stock/adjustment';
import { recordStockAdjusted, recordStockMove, type RecordedMove } from '../stock/stock.ledger';
import { carriesStock, stockLevelsProblem, taxDefaultProblem } from './product-rules';
import { toProductRecord, type ProductRow } from './product.record';
import { findLiveProduct, loadProductView, quantityAt, totalStock, updateProduct } from './product.repository';

type EditRequest = catalog.EditProductRequestOf;

export const editProductHandler = handler(catalog.editProduct, async (req, ctx) => {
  // Made outside the edit's transaction: the defaults must exist, committed, whoever else needs them.
  const defaultLocation = req.stock !== undefined ? await ensureDefaultLocation(ctx.db, ctx.orgId) : null;
  return ctx.db.transaction(async (trx) => {
    const current = await findLiveProduct(trx, ctx.orgId, req.product_id, { lock: true });
    const changes: Partial<Record<keyof ProductRow, unknown>> = {};
    for (const field of ['name', 'price', 'cost', 'taxable', 'tax_rate', 'type'] as const) {
      if (req[field] !== undefined) changes[field] = req[field];
    }
    for (const field of ['description', 'image', 'uom'] as const) if (req[field] !== undefined) changes[field] = req[field] || null;
    if (req.barcode !== undefined) changes.barcode = req.barcode.trim() || null;
    if (req.category_id === null) changes.category_id = null;
    if (req.category_id) changes.category_id = (await findCategory(trx, ctx.orgId, req.category_id)).id;

    if (req.tax_category !== undefined) changes.tax_category = req.tax_category;
    const tax = taxDefaultProblem(
      req.tax_rate ?? current.tax_rate,
      req.tax_category === undefined ? current.tax_category : req.tax_category,
    );
    if (tax) throw productRefusals.taxDefault(tax, req.tax_category === undefined ? 'tax_rate' : 'tax_category');

    if (req.min_stock_level !== undefined) changes.min_stock_level = req.min_stock_level;
    if (req.max_stock_level !== undefined) changes.max_stock_level = req.max_stock_level;
    const levels = stockLevelsProblem(
      req.min_stock_level === undefined ? current.min_stock_level : req.min_stock_level,
      req.max_stock_level === undefined ? current.max_stock_level : req.max_stock_level,
    );
    if (levels) throw productRefusals.stockLevels(levels);

    if (req.sku !== undefined) {
      const sku = cleanSku(req.sku);
      if (skuKey(sku) !== skuKey(current.sku)) {
        await moveSku(trx, ctx.orgId, sku, { kind: 'product', id: current.id });
      }
      changes.sku = sku;
    }

    // The fields change before the stock does, so the stock move's event names the product as edited
    // (its new SKU); a refusal below still rolls both back.
    const product = await updateProduct(trx, current.id, changes, ctx.userId ?? null);
    const move = req.stock !== undefined && defaultLocation ? await setTotalStock(trx, ctx, product, req, defaultLocation) : null;
    if (!carriesStock(product.type) && !dec(await totalStock(trx, product.id)).isZero()) {
      throw productRefusals.stockStillHeld(product.id, product.type);
    }

    const record = toProductRecord(await loadProductView(trx, ctx.orgId, current.id));
    await recordEvent(trx, catalog.productUpdated, ctx.orgId, record);
    if (move) await recordStockAdjusted(trx, ctx.orgId, move);
    return { message: 'Product updated successfully', product: record };
  });
});

/** `stock` on edit is the product's new total, reached by moving the default location only. */
async function setTotalStock(
  trx: Knex.Transaction,
  ctx: { orgId: number; userId?: string },
  product: ProductRow,
  req: EditRequest,
  defaultLocation: LocationJoinRow,
): Promise<RecordedMove | null> {
  const requested = req.stock as string;
  if (!carriesStock(product.type) && !dec(requested).isZero()) throw productRefusals.stockOnStocklessProduct(product.type);
  const total = await totalStock(trx, product.id);
  if (dec(total).equals(dec(requested))) return null;
  const atDefault = await quantityAt(trx, product.id, defaultLocation.location_id);
  const target = defaultLocationTarget(requested, total, atDefault);
  if (target === null) {
    throw productRefusals.stockBelowOtherLocations(requested, dec(total).minus(dec(atDefault)).toFixed());
  }
  return recordStockMove(trx, {
    orgId: ctx.orgId,
    product,
    source: 'product_edit',
    adjustmentType: 'product_edit',
    reference: 'Product edit',
    userId: ctx.userId,
    targets: [{ location: defaultLocation, quantity: target.toFixed() }],
  });
}
