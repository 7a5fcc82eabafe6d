import { catalog } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { handler, recordEvent } from '@bo/runtime';
import { productRefusals } from './product-refusals';
import { findCategory } from '../category/category.repository';
import { claimSku } from '../sku/sku.registry';
import { cleanSku } from '../sku/sku';
import { recordStockAdjusted, recordStockMove } from '../stock/stock.ledger';
import { resolvePlacement } from './placement';
import { carriesStock, stockLevelsProblem, taxDefaultProblem } from './product-rules';
import { toProductRecord } from './product.record';
import { insertProduct, loadProductView } from './product.repository';

export const createProductHandler = handler(catalog.createProduct, async (req, ctx) => {
  const type = req.type ?? 'inventory';
  const initialStock = req.stock !== undefined && !dec(req.stock).isZero() ? req.stock : null;
  if (initialStock !== null && !carriesStock(type)) throw productRefusals.stockOnStocklessProduct(type);
  const levels = stockLevelsProblem(req.min_stock_level, req.max_stock_level);
  if (levels) throw productRefusals.stockLevels(levels);
  const tax = taxDefaultProblem(req.tax_rate ?? '0', req.tax_category);
  if (tax) throw productRefusals.taxDefault(tax, 'tax_category');
  const location = await resolvePlacement(ctx.db, ctx.orgId, req, initialStock !== null);

  return ctx.db.transaction(async (trx) => {
    const category = req.category_id ? await findCategory(trx, ctx.orgId, req.category_id) : null;
    const sku = cleanSku(req.sku);
    const product = await insertProduct(
      trx,
      ctx.orgId,
      {
        name: req.name,
        description: req.description || null,
        price: req.price ?? '0',
        cost: req.cost ?? '0',
        category_id: category?.id ?? null,
        sku,
        barcode: req.barcode?.trim() || null,
        image: req.image || null,
        taxable: req.taxable ?? true,
        tax_rate: req.tax_rate ?? '0',
        tax_category: req.tax_category ?? null,
        type,
        uom: req.uom || null,
        min_stock_level: req.min_stock_level ?? null,
        max_stock_level: req.max_stock_level ?? null,
      },
      ctx.userId ?? null,
    );
    await claimSku(trx, ctx.orgId, sku, { kind: 'product', id: product.id });
    const move =
      initialStock !== null && location
        ? await recordStockMove(trx, {
            orgId: ctx.orgId,
            product,
            source: 'initial',
            adjustmentType: 'initial',
            reference: 'Initial stock',
            userId: ctx.userId,
            targets: [{ location, quantity: initialStock }],
          })
        : null;
    const record = toProductRecord(await loadProductView(trx, ctx.orgId, product.id));
    await recordEvent(trx, catalog.productCreated, ctx.orgId, record);
    if (move) await recordStockAdjusted(trx, ctx.orgId, move);
    return { message: 'Product created successfully', product: record };
  });
});
