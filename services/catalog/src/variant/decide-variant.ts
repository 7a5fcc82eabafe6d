import type { catalog, RequestOf } from '@bo/contracts';
import { taxDefaultProblem } from '../product/product-rules';
import { cleanSku } from '../sku/sku';
import { duplicateOptionName, optionsKey } from './options';
import { variantRefusals } from './variant-refusals';

export type CreateVariantRequest = RequestOf<typeof catalog.createVariant>;

/** A new variant, decided from the request: what it is stored with. */
export interface NewVariant {
  parentProductId: number;
  variantName: string;
  /** Its options, names and values trimmed, and the key two variants with the same ones share (optionsKey). */
  options: Record<string, string>;
  optionsKey: string;
  /** Its own price and cost; null: its product's, as the product is when the variant is stored. */
  price: string | null;
  cost: string | null;
  sku: string | null;
  barcode: string | null;
  /** Its own default VAT rate and category; null: its product's. */
  taxRate: string | null;
  taxCategory: string | null;
}

/**
 * Decides a new variant from the request: its options trimmed (a name given twice, compared without
 * case, is refused), a tax category only beside a rate and going with it, blank SKU and barcode
 * none. A variant without its own price or cost sells and costs as its product does. That the
 * product is the organization's and live, that no variant of it has these options and that no
 * article has the SKU are checked where it is stored.
 */
export function decideNewVariant(req: CreateVariantRequest): NewVariant {
  const given = req.options ?? {};
  const clash = duplicateOptionName(given);
  if (clash !== null) throw variantRefusals.optionNamedTwice(clash);
  if (req.tax_category !== undefined && req.tax_rate === undefined) throw variantRefusals.taxCategoryWithoutRate();
  const tax = taxDefaultProblem(req.tax_rate, req.tax_category);
  if (tax) throw variantRefusals.taxDefault(tax);
  const options = Object.fromEntries(Object.entries(given).map(([name, value]) => [name.trim(), value.trim()]));
  return {
    parentProductId: req.parent_product_id,
    variantName: req.variant_name,
    options,
    optionsKey: optionsKey(options),
    price: req.price ?? null,
    cost: req.cost ?? null,
    sku: cleanSku(req.sku),
    barcode: req.barcode?.trim() || null,
    taxRate: req.tax_rate ?? null,
    taxCategory: req.tax_category ?? null,
  };
}
