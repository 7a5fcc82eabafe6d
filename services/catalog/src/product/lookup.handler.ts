import { catalog } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { parseStringId } from '../ids';
import { locationsAmong, toLocationRow } from '../location/location.repository';
import { liveProductsAmong, liveVariantsAmong } from './product.repository';

/**
 * Internal: the live products, variants (of live products) and locations of the organization among
 * the ids asked, in three queries whatever the number of lines. What is missing is left out; the
 * caller names it per line.
 */
export const lookupHandler = handler(catalog.lookup, async (req, ctx) => {
  const productIds = req.product_ids ?? [];
  const variantIds = req.variant_ids ?? [];
  const locationIds = (req.location_ids ?? []).map(parseStringId).filter((id): id is number => id !== null);
  const products = await liveProductsAmong(ctx.db, ctx.orgId, productIds);
  const variants = await liveVariantsAmong(ctx.db, ctx.orgId, variantIds);
  const locations = await locationsAmong(ctx.db, ctx.orgId, locationIds);
  return {
    message: 'Catalog records found',
    products: products.map((p) => ({
      id: p.id,
      name: p.name,
      description: p.description,
      price: toNumber(p.price),
      sku: p.sku,
      uom: p.uom,
      type: p.type,
      tax_rate: toNumber(p.tax_rate),
      tax_category: p.tax_category,
    })),
    variants: variants.map((v) => ({
      id: v.id,
      parent_product_id: v.parent_product_id,
      variant_name: v.variant_name,
      price: toNumber(v.price),
      sku: v.sku,
      tax_rate: v.tax_rate === null ? null : toNumber(v.tax_rate),
      tax_category: v.tax_category,
    })),
    locations: locations.map(toLocationRow),
  };
});
