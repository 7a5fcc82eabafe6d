import { sum, type LineTaxes, type TaxDocument, type TaxDocumentInput } from '@bo/kernel';
import {
  computeDocumentTaxes,
  documentTaxColumns,
  documentTaxInput,
  lineAmountsUnchanged,
  type FieldNaming,
  type TaxContext,
  type TaxedLine,
} from '@bo/billing';
import { quotationLineAmounts } from './quotation-lines';
import type { LineRow, QuotationRow } from './quotation.record';

export { storedTaxContext, taxParties } from '@bo/billing';

/**
 * A quotation's stored rows as the kernel's tax calculation reads them (docs/invoicing.md, "Taxes
 * and rounding"): the one mapping every reader of a quotation's taxes uses (create, add line, edit,
 * the PDF). `context` is the organization's policy for a draft, `storedTaxContext(q)` once it is sent.
 */
export function quotationTaxInput(
  q: Pick<QuotationRow, 'currency' | 'allowances_charges'>,
  lines: readonly TaxedLine[],
  context: TaxContext,
): TaxDocumentInput {
  return documentTaxInput(q, lines, context);
}

/** The quotation's taxes with `context`, or a 400 naming what the rules refuse. */
export function computeQuotation(
  q: Pick<QuotationRow, 'currency' | 'allowances_charges'>,
  lines: readonly TaxedLine[],
  context: TaxContext,
  naming?: FieldNaming,
): TaxDocument {
  return computeDocumentTaxes(q, lines, context, naming);
}

/** The quotation's stored tax figures: totals as invoices keep them, and the discount lines took off. */
export function quotationTaxColumns(doc: TaxDocument, q: Pick<QuotationRow, 'allowances_charges'>, context: TaxContext) {
  return {
    ...documentTaxColumns(doc, q.allowances_charges, context),
    discount_total: sum(doc.lines.map((l) => l.discount_amount)).toFixed(doc.minor_unit),
  };
}

/**
 * The quotation's tax columns as its row holds them (quotationTaxColumns, its JSON columns as values),
 * for a store that writes them and a reply that tells them.
 */
export function quotationTaxRow(doc: TaxDocument, q: Pick<QuotationRow, 'allowances_charges'>, context: TaxContext) {
  const columns = quotationTaxColumns(doc, q, context);
  return {
    ...columns,
    allowances_charges: JSON.parse(columns.allowances_charges) as QuotationRow['allowances_charges'],
    tax_breakdown: JSON.parse(columns.tax_breakdown) as QuotationRow['tax_breakdown'],
  } satisfies Partial<QuotationRow>;
}

/** A stored line's amounts as the quotation's calculation now gives them. */
export interface LineAmountsChange {
  id: number;
  tax_category: string;
  subtotal: string;
  tax_amount: string;
  total: string;
}

/**
 * The stored lines whose amounts the computed quotation changes (under `document` rounding a line's
 * share may move when another is added or an allowance changes), each with its new amounts; the
 * lines are `doc`'s first ones, in its order.
 */
export function changedLineAmounts(lines: readonly LineRow[], doc: TaxDocument): LineAmountsChange[] {
  return lines.flatMap((line, i) => {
    const { discount_amount: _kept, ...columns } = quotationLineAmounts(doc.lines[i] as LineTaxes, doc.minor_unit);
    return lineAmountsUnchanged(line, columns) ? [] : [{ id: line.id, ...columns }];
  });
}
