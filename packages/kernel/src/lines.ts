import { toNumber } from './money';
import { defaultCategory } from './tax/categories';

/** A document line as sales and invoicing store it: decimals as numeric strings, amounts computed by the server. */
export interface StoredLine {
  product_id: string;
  variant_id: string | null;
  location_id: string | null;
  product_name: string | null;
  sku: string | null;
  uom: string | null;
  description: string | null;
  quantity: string;
  price: string;
  discount: string;
  tax_rate: string;
  tax_included: boolean;
  /** The EN 16931 VAT category (tax/categories.ts); absent: S when `tax_rate` is above 0, Z when it is 0. */
  tax_category?: string | null;
  /** BT-120: why no VAT is charged, in words (E, AE, K, G, O). */
  tax_exemption_reason?: string | null;
  /** BT-121: the VATEX code of that reason. */
  tax_exemption_code?: string | null;
  /** A reverse-charge (AE) line of a vendor bill: the rate, in percent, its buyer self-assesses (docs/invoicing.md "Journal entries"). */
  reverse_charge_rate?: string | null;
  subtotal: string;
  tax_amount: string;
  total: string;
}

/** A line's amounts, which the server computes whatever the client sent. */
export type LineAmountField = 'subtotal' | 'tax_amount' | 'total';

/** A line as entered and completed from the catalog, before the server's amounts are beside it. */
export type EnteredLine = Omit<StoredLine, LineAmountField>;

/** The line's decimals: numeric strings as stored, JSON numbers as answered. */
type LineDecimalField = 'quantity' | 'price' | 'discount' | 'tax_rate' | LineAmountField;
type LineTaxField = 'tax_category' | 'tax_exemption_reason' | 'tax_exemption_code' | 'reverse_charge_rate';

/** A stored line's fields as JSON answers carry them (spec 2.6 line item); contracts' line record is held to it. */
export type LineFigures = Omit<StoredLine, LineDecimalField | LineTaxField> &
  Record<LineDecimalField, number> & {
    tax_category: string;
    tax_exemption_reason: string | null;
    tax_exemption_code: string | null;
    reverse_charge_rate: number | null;
  };

/** The category a stored line is taxed in: the one it names, else S for a positive rate and Z for 0. */
export function lineCategory(row: Pick<StoredLine, 'tax_category' | 'tax_rate'>): string {
  return row.tax_category || defaultCategory(row.tax_rate);
}

export function lineFigures(row: StoredLine): LineFigures {
  return {
    product_id: row.product_id,
    variant_id: row.variant_id,
    location_id: row.location_id,
    product_name: row.product_name,
    sku: row.sku,
    uom: row.uom,
    description: row.description,
    quantity: toNumber(row.quantity),
    price: toNumber(row.price),
    discount: toNumber(row.discount),
    tax_rate: toNumber(row.tax_rate),
    tax_included: row.tax_included,
    tax_category: lineCategory(row),
    tax_exemption_reason: row.tax_exemption_reason ?? null,
    tax_exemption_code: row.tax_exemption_code ?? null,
    reverse_charge_rate:
      row.reverse_charge_rate === null || row.reverse_charge_rate === undefined ? null : toNumber(row.reverse_charge_rate),
    subtotal: toNumber(row.subtotal),
    tax_amount: toNumber(row.tax_amount),
    total: toNumber(row.total),
  };
}
