import { catalog } from '@bo/contracts';
import { formatDateTime, toNumber } from '@bo/kernel';
import { handler, isUniqueViolation } from '@bo/runtime';
import { taxDefaultProblem } from '../product/product-rules';
import { findLiveProduct } from '../product/product.repository';
import { claimSku } from '../sku/sku.registry';
import { cleanSku } from '../sku/sku';
import { duplicateOptionName, optionsKey } from './options';
import { insertVariant } from './variant.repository';
import { variantRefusals } from './variant-refusals';

export const createVariantHandler = handler(catalog.createVariant, async (req, ctx) => {
  const options = Object.fromEntries(Object.entries(req.options ?? {}).map(([k, v]) => [k.trim(), v.trim()]));
  const clash = duplicateOptionName(req.options ?? {});
  if (clash !== null) throw variantRefusals.optionNamedTwice(clash);
  if (req.tax_category !== undefined && req.tax_rate === undefined) throw variantRefusals.taxCategoryWithoutRate();
  const tax = taxDefaultProblem(req.tax_rate, req.tax_category);
  if (tax) throw variantRefusals.taxDefault(tax);
  try {
    return await ctx.db.transaction(async (trx) => {
      // Locking the parent queues variant creation per product and keeps it from being deleted meanwhile.
      const parent = await findLiveProduct(trx, ctx.orgId, req.parent_product_id, { lock: true });
      const sku = cleanSku(req.sku);
      const v = await insertVariant(
        trx,
        ctx.orgId,
        {
          parent_product_id: parent.id,
          variant_name: req.variant_name,
          options: JSON.stringify(options),
          options_key: optionsKey(options),
          // A variant without its own price or cost sells and costs as its product does.
          price: req.price ?? parent.price,
          cost: req.cost ?? parent.cost,
          sku,
          barcode: req.barcode?.trim() || null,
          tax_rate: req.tax_rate ?? null,
          tax_category: req.tax_category ?? null,
        },
        ctx.userId ?? null,
      );
      await claimSku(trx, ctx.orgId, sku, { kind: 'variant', id: v.id });
      return {
        message: 'Variant created successfully',
        variant: {
          id: v.id,
          parent_product_id: v.parent_product_id,
          variant_name: v.variant_name,
          options: v.options,
          price: toNumber(v.price),
          cost: toNumber(v.cost),
          sku: v.sku,
          barcode: v.barcode,
          tax_rate: v.tax_rate === null ? null : toNumber(v.tax_rate),
          tax_category: v.tax_category,
          created_at: formatDateTime(v.created_at) as string,
        },
      };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'variants_parent_options')) throw variantRefusals.optionsTaken(req.parent_product_id, options);
    throw err;
  }
});
