import { toNumber } from './money';

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

/** A stored line's fields as JSON answers carry them (spec 2.6 line item); contracts' line record is held to it. */
export type LineFigures = Omit<StoredLine, LineDecimalField> & Record<LineDecimalField, number>;

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
    subtotal: toNumber(row.subtotal),
    tax_amount: toNumber(row.tax_amount),
    total: toNumber(row.total),
  };
}
