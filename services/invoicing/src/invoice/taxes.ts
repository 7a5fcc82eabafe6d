import { dec, type Dec, type TaxDocument, type TaxDocumentInput } from '@bo/kernel';
import { documentTaxInput, type StoredAllowanceCharge, type TaxContext, type TaxedLine } from '@bo/billing';
import type { InvoiceRow } from './invoice.record';
import { invoiceRefusals } from './invoice-refusals';

/**
 * An invoice's stored rows as the kernel's tax calculation reads them (docs/invoicing.md, "Taxes and
 * rounding"): the one mapping every reader of an invoice's taxes uses (create, add line, validation,
 * the journal, the VAT report, the PDF and the e-invoices). `context` is the organization's policy
 * for a draft, and `storedTaxContext(invoice)` for an issued invoice, whose policy is frozen.
 */
export function invoiceTaxInput(
  invoice: Pick<InvoiceRow, 'currency' | 'allowances_charges'>,
  lines: readonly TaxedLine[],
  context: TaxContext,
): TaxDocumentInput {
  return documentTaxInput(invoice, lines, context);
}

/** What a vendor document self-assesses per rate: the AE rows' base at each `reverse_charge_rate`. */
export interface SelfAssessed {
  rate: Dec;
  base: Dec;
}

const PURCHASES = new Set<InvoiceRow['invoicetype']>(['invoicein', 'creditin']);

/**
 * The reverse charge a vendor bill (or vendor credit) owes on its AE lines, allowances and charges:
 * their nets grouped by `reverse_charge_rate`. On what the organization sells the buyer self-assesses,
 * so nothing is. An AE row of a vendor document without the rate is refused by name: the row's rate
 * is 0 by EN 16931, so only that field says what the organization owes.
 */
export function selfAssessed(
  type: InvoiceRow['invoicetype'],
  lines: readonly TaxedLine[],
  allowances: readonly StoredAllowanceCharge[],
  doc: TaxDocument,
): SelfAssessed[] {
  if (!PURCHASES.has(type)) return [];
  const errors: Array<{ field: string; message: string }> = [];
  const byRate = new Map<string, SelfAssessed>();
  const add = (rate: string | null | undefined, amount: Dec, field: string) => {
    if (rate === null || rate === undefined) {
      errors.push({
        field,
        message: `${field}: a reverse-charge (AE) row of a vendor document names the rate the organization self-assesses (reverse_charge_rate)`,
      });
      return;
    }
    const key = dec(rate).toFixed();
    const entry = byRate.get(key) ?? { rate: dec(rate), base: dec(0) };
    entry.base = entry.base.plus(amount);
    byRate.set(key, entry);
  };
  doc.lines.forEach((l, i) => {
    if (l.tax_category === 'AE') add(lines[i]?.reverse_charge_rate, l.net, `line_items.${i}.reverse_charge_rate`);
  });
  doc.allowances_charges.forEach((a, k) => {
    if (a.tax_category === 'AE')
      add(allowances[k]?.reverse_charge_rate, a.charge ? a.amount : a.amount.neg(), `allowances_charges.${k}.reverse_charge_rate`);
  });
  if (errors.length) throw invoiceRefusals.reverseChargeRatesRefused(errors);
  return [...byRate.values()];
}
