import { catalog } from '@bo/contracts';
import { filledIn, handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { findCategory } from '../category/category.repository';
import { claimSku } from '../sku/sku.registry';
import { recordStockAdjusted, recordStockMove } from '../stock/stock.ledger';
import { decideNewProduct, decideNewProductAlone, newProductRecord } from './decide-new-product';
import { resolvePlacement } from './placement';
import { toProductRecord } from './product.record';
import { insertProduct, loadProductView, productInsertAlone } from './product.repository';

const MESSAGE = 'Product created successfully';

/**
 * Decide → store. A new product with no stock to place and no location named decides on nothing
 * stored: as a rule the product, its SKU, its event and the recorded reply are one statement with no
 * transaction (`alone`), which writes only under a category of the organization and with a SKU no
 * article holds, its id, times and category's name filled in from it. A refusal, a category not
 * found, a SKU taken, or a product placed with initial stock goes the usual way (`apply`): the
 * placement resolved, then the product, its SKU, its first stock move and their events.
 */
export const createProductHandler = handler(catalog.createProduct, {
  alone: (req, ctx) => {
    const product = unlessRefused(() => decideNewProductAlone(req));
    if (!product) return undefined;
    const record = newProductRecord(product, {
      id: filledIn(),
      categoryName: product.category_id === null ? null : filledIn(),
      createdAt: filledIn(),
      updatedAt: filledIn(),
    });
    return {
      ...productInsertAlone(ctx.orgId, product, ctx.userId ?? null),
      events: [statementEvent(catalog.productCreated, ctx.orgId, record)],
      reply: { message: MESSAGE, product: record },
    };
  },
  apply: async (req, ctx) => {
    const plan = decideNewProduct(req);
    const location = await resolvePlacement(ctx.db, ctx.orgId, req, plan.initialStock !== null);
    return ctx.db.transaction(async (trx) => {
      const category = plan.category === null ? null : await findCategory(trx, ctx.orgId, plan.category);
      const product = await insertProduct(trx, ctx.orgId, { ...plan.product, category_id: category?.id ?? null }, ctx.userId ?? null);
      await claimSku(trx, ctx.orgId, plan.product.sku, { kind: 'product', id: product.id });
      const move =
        plan.initialStock !== null && location
          ? await recordStockMove(trx, {
              orgId: ctx.orgId,
              product,
              source: 'initial',
              adjustmentType: 'initial',
              reference: 'Initial stock',
              userId: ctx.userId,
              targets: [{ location, quantity: plan.initialStock }],
            })
          : null;
      const record = toProductRecord(await loadProductView(trx, ctx.orgId, product.id));
      await recordEvent(trx, catalog.productCreated, ctx.orgId, record);
      if (move) await recordStockAdjusted(trx, ctx.orgId, move);
      return { message: MESSAGE, product: record };
    });
  },
});
