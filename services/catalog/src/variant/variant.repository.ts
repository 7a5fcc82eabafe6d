import type { Knex } from '@bo/runtime';

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

/** The fields a new variant is stored with (`options` as JSON text, `options_key` its normalized key). */
export interface NewVariant {
  parent_product_id: number;
  variant_name: string;
  options: string;
  options_key: string;
  price: string;
  cost: string;
  sku: string | null;
  barcode: string | null;
  tax_rate: string | null;
  tax_category: string | null;
}

/** Stores a new variant of the organization's product and returns its row. */
export async function insertVariant(trx: Knex, orgId: number, variant: NewVariant, userId: string | null): Promise<VariantRow> {
  const [row] = (await trx('variants')
    .insert({ org_id: orgId, ...variant, created_by: userId })
    .returning('*')) as VariantRow[];
  return row as VariantRow;
}
