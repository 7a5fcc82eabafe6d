import { catalog } from '@bo/contracts';
import { filledIn, handler, isUniqueViolation, unlessRefused } from '@bo/runtime';
import { findLiveProduct } from '../product/product.repository';
import { claimSku } from '../sku/sku.registry';
import { decideNewVariant } from './decide-variant';
import { toVariantRecord } from './variant.record';
import { insertVariant, variantInsertAlone } from './variant.repository';
import { variantRefusals } from './variant-refusals';

const MESSAGE = 'Variant created successfully';

/**
 * Decide → store. A new variant decides on nothing stored but its product's price and cost, which
 * it takes when it has none of its own: as a rule the variant, its SKU and the recorded reply are
 * one statement with no transaction (`alone`), which locks the product as the usual way does
 * (variants of one product queue up, and none is made under a product being deleted) and answers
 * the variant as written. A product not found, options another variant of it has or a SKU taken
 * write nothing there, and the usual way (`apply`) answers them: the product locked, the variant
 * stored, its SKU claimed.
 */
export const createVariantHandler = handler(catalog.createVariant, {
  alone: (req, ctx) => {
    const variant = unlessRefused(() => decideNewVariant(req));
    if (!variant) return undefined;
    return { ...variantInsertAlone(ctx.orgId, variant, ctx.userId ?? null), events: [], reply: { message: MESSAGE, variant: filledIn() } };
  },
  apply: async (req, ctx) => {
    const variant = decideNewVariant(req);
    try {
      return await ctx.db.transaction(async (trx) => {
        // Locking the parent queues variant creation per product and keeps it from being deleted meanwhile.
        const parent = await findLiveProduct(trx, ctx.orgId, req.parent_product_id, { lock: true });
        const v = await insertVariant(trx, ctx.orgId, variant, parent, ctx.userId ?? null);
        await claimSku(trx, ctx.orgId, variant.sku, { kind: 'variant', id: v.id });
        return { message: MESSAGE, variant: toVariantRecord(v) };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'variants_parent_options')) throw variantRefusals.optionsTaken(req.parent_product_id, variant.options);
      throw err;
    }
  },
});
