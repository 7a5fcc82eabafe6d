import { computeLine, dec, sumLines, type Dec, type EnteredLine, type LineAmounts, type LineTaxes } from '@bo/kernel';
import { lineAmountColumns, type ResolvedLine } from '@bo/billing';

/**
 * Largest line and document totals accepted. JSON carries amounts as binary doubles, which keep
 * every decimal of up to 15 significant digits: below 10^13 an amount with cents has at most 15,
 * so it reaches the client exactly (at 10^14 one in ten such amounts came out a cent off).
 */
export const MAX_LINE_TOTAL = dec('1e12');
export const MAX_DOCUMENT_TOTAL = dec('1e13');

/** A line as entered, with its amounts alone beside it (for the size checks; the document's calculation gives the stored ones). */
export interface PricedLine extends EnteredLine {
  amounts: LineAmounts;
}

/**
 * The server's amounts for a line checked against the catalog (docs/design.md line arithmetic); whatever
 * amounts the client sent are ignored.
 */
export function priceLine(input: ResolvedLine): PricedLine {
  return {
    product_id: input.product_id,
    variant_id: input.variant_id,
    location_id: input.location_id,
    product_name: input.product_name || null,
    sku: input.sku,
    uom: input.uom,
    description: input.description || null,
    quantity: input.quantity,
    price: input.price,
    discount: input.discount ?? '0',
    tax_rate: input.tax_rate,
    tax_included: input.tax_included,
    tax_category: input.tax_category,
    tax_exemption_reason: input.tax_exemption_reason ?? null,
    tax_exemption_code: input.tax_exemption_code ?? null,
    reverse_charge_rate: input.reverse_charge_rate ?? null,
    amounts: computeLine({
      quantity: input.quantity,
      price: input.price,
      discount: input.discount,
      tax_rate: input.tax_rate,
      tax_included: input.tax_included,
    }),
  };
}

/** A line whose total, subtotal or discount reaches MAX_LINE_TOTAL: a 100% discount on a huge line is no smaller to store. */
export function lineTooLarge(amounts: LineAmounts): boolean {
  return [amounts.total, amounts.subtotal, amounts.discount_amount].some((a) => a.abs().gte(MAX_LINE_TOTAL));
}

export interface DocumentTotals {
  subtotal: Dec;
  tax_amount: Dec;
  discount_total: Dec;
  total: Dec;
}

/** Document totals are sums of the rounded lines. */
export function documentTotals(lines: LineAmounts[]): DocumentTotals {
  const s = sumLines(lines);
  return { subtotal: s.subtotal, tax_amount: s.tax_amount, discount_total: s.discount_amount, total: s.total };
}

export function documentTooLarge(totals: DocumentTotals): boolean {
  return [totals.total, totals.subtotal, totals.discount_total].some((a) => a.abs().gte(MAX_DOCUMENT_TOTAL));
}

/** valid_until may not fall before the day of the quotation date. */
export function validUntilBeforeDate(quotationDate: string, validUntil: string): boolean {
  return validUntil < quotationDate.slice(0, 10);
}

/** A line's stored amounts as the quotation's calculation gave them, its discount's included. */
export function quotationLineAmounts(taxes: LineTaxes, places: number) {
  return { ...lineAmountColumns(taxes, places), discount_amount: taxes.discount_amount.toFixed(places) };
}
