import { catalog } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { parseStringId } from '../ids';
import { locationsQuery, toLocationRow, type LocationJoinRow } from '../location/location.repository';
import type { ProductRow } from './product.record';

interface VariantRow {
  id: number;
  parent_product_id: number;
  variant_name: string;
  price: string;
  sku: string | null;
  tax_rate: string | null;
  tax_category: string | null;
}

/**
 * Internal: the live products, variants (of live products) and locations of the organization among
 * the ids asked, in three queries whatever the number of lines. What is missing is left out; the
 * caller names it per line.
 */
export const lookupHandler = handler(catalog.lookup, async (req, ctx) => {
  const productIds = req.product_ids ?? [];
  const variantIds = req.variant_ids ?? [];
  const locationIds = (req.location_ids ?? []).map(parseStringId).filter((id): id is number => id !== null);
  const products: ProductRow[] = productIds.length
    ? await ctx.db<ProductRow>('products').where('org_id', ctx.orgId).whereIn('id', productIds).whereNull('deleted_at')
    : [];
  const variants: VariantRow[] = variantIds.length
    ? await ctx
        .db('variants as v')
        .join('products as p', (j) => j.on('p.id', 'v.parent_product_id').andOn('p.org_id', 'v.org_id'))
        .where('v.org_id', ctx.orgId)
        .whereIn('v.id', variantIds)
        .whereNull('v.deleted_at')
        .whereNull('p.deleted_at')
        .select<VariantRow[]>('v.id', 'v.parent_product_id', 'v.variant_name', 'v.price', 'v.sku', 'v.tax_rate', 'v.tax_category')
    : [];
  const locations: LocationJoinRow[] = locationIds.length
    ? ((await locationsQuery(ctx.db, ctx.orgId).whereIn('l.id', locationIds)) as LocationJoinRow[])
    : [];
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
