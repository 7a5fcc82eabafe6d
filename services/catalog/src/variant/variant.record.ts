import type { catalog } from '@bo/contracts';
import { formatDateTime, toNumber } from '@bo/kernel';

/** A `variants` row as a new variant's reply reads it. */
export interface VariantRow {
  id: number;
  parent_product_id: number;
  variant_name: string;
  options: Record<string, string>;
  price: string;
  cost: string;
  sku: string | null;
  barcode: string | null;
  tax_rate: string | null;
  tax_category: string | null;
  created_at: Date;
}

/** A variant's record as stored. */
export function toVariantRecord(v: VariantRow): catalog.VariantRecord {
  return {
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
  };
}
