import { formatDateTimeSql } from '@bo/kernel';
import type { Knex, OneStatementWrite } from '@bo/runtime';
import { claimSkuPart } from '../sku/sku.registry';
import type { NewVariant } from './decide-variant';
import type { VariantRow } from './variant.record';

/** A variant's record (toVariantRecord) in SQL over its `variants` row, for a statement that answers it as written. */
const VARIANT_RECORD = `json_build_object('id', id, 'parent_product_id', parent_product_id, 'variant_name', variant_name,
  'options', options, 'price', price, 'cost', cost, 'sku', sku, 'barcode', barcode, 'tax_rate', tax_rate,
  'tax_category', tax_category, 'created_at', ${formatDateTimeSql('created_at')})`;

/** Stores a new variant of the organization's product (`parent`, locked), its price and cost its own or the product's, and returns its row. */
export async function insertVariant(
  trx: Knex,
  orgId: number,
  variant: NewVariant,
  parent: { id: number; price: string; cost: string },
  userId: string | null,
): Promise<VariantRow> {
  const [row] = (await trx('variants')
    .insert({
      org_id: orgId,
      parent_product_id: parent.id,
      variant_name: variant.variantName,
      options: JSON.stringify(variant.options),
      options_key: variant.optionsKey,
      price: variant.price ?? parent.price,
      cost: variant.cost ?? parent.cost,
      sku: variant.sku,
      barcode: variant.barcode,
      tax_rate: variant.taxRate,
      tax_category: variant.taxCategory,
      created_by: userId,
    })
    .returning('*')) as VariantRow[];
  return row as VariantRow;
}

/**
 * A new variant as a one-statement write (storeAlone): its product, which must be the
 * organization's and live, locked as the usual way locks it (`store1`: variants of one product
 * queue up, and a delete of it in flight is waited for and then seen), the variant with its own
 * price and cost or the product's as locked (`store2`), and its SKU claimed (`store3`). A product
 * not found writes nothing, nor do options another variant of it has or a SKU another article
 * holds (the unique indexes): the usual way answers them. The variant as written is filled in where
 * the reply says `variant`.
 */
export function variantInsertAlone(
  orgId: number,
  variant: NewVariant,
  userId: string | null,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const sku = claimSkuPart(orgId, variant.sku, 'variant', 'store2');
  return {
    parts: [
      {
        sql: 'select id, price, cost from products where org_id = ? and id = ? and deleted_at is null for no key update',
        bindings: [orgId, variant.parentProductId],
      },
      {
        sql: `insert into variants (org_id, parent_product_id, variant_name, options, options_key, price, cost, sku, barcode, tax_rate, tax_category, created_by)
              select ?, p.id, ?, ?::jsonb, ?, coalesce(?::numeric, p.price), coalesce(?::numeric, p.cost), ?, ?, ?, ?, ? from store1 p
              returning id, ${VARIANT_RECORD} as record`,
        bindings: [
          orgId,
          variant.variantName,
          JSON.stringify(variant.options),
          variant.optionsKey,
          variant.price,
          variant.cost,
          variant.sku,
          variant.barcode,
          variant.taxRate,
          variant.taxCategory,
          userId,
        ],
      },
      ...(sku ? [sku] : []),
    ],
    expects: '(select count(*) from store2) = 1',
    fills: [{ key: 'variant', sql: '(select record::text from store2)' }],
  };
}
