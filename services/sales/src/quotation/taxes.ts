import { sum, type LineTaxes, type TaxDocument, type TaxDocumentInput } from '@bo/kernel';
import { type Knex } from '@bo/runtime';
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
 * Stores a computed quotation's amounts: the lines whose figures changed (under `document` rounding a
 * line's share may move when another is added) and the header's totals, breakdown and policy.
 */
export async function storeQuotationTaxes(
  trx: Knex.Transaction,
  q: QuotationRow,
  lines: readonly LineRow[],
  doc: TaxDocument,
  context: TaxContext,
  extra: Record<string, unknown> = {},
): Promise<QuotationRow> {
  const changed = lines.flatMap((line, i) => {
    const columns = quotationLineAmounts(doc.lines[i] as LineTaxes, doc.minor_unit);
    return lineAmountsUnchanged(line, columns) ? [] : [{ id: line.id, ...columns }];
  });
  if (changed.length) {
    const values = changed.map(() => '(?::int, ?, ?::numeric, ?::numeric, ?::numeric)').join(', ');
    await trx.raw(
      `update quotation_lines l set tax_category = v.tax_category, subtotal = v.subtotal, tax_amount = v.tax_amount, total = v.total
         from (values ${values}) as v(id, tax_category, subtotal, tax_amount, total) where l.id = v.id`,
      changed.flatMap((c) => [c.id, c.tax_category, c.subtotal, c.tax_amount, c.total]),
    );
  }
  const [row] = (await trx('quotations')
    .where({ id: q.id })
    .update({ ...quotationTaxColumns(doc, q, context), ...extra, updated_at: trx.fn.now() })
    .returning('*')) as QuotationRow[];
  return row as QuotationRow;
}
