import {
  dec,
  defaultCategory,
  documentMinorUnit,
  vatInAccountingCurrency,
  type AllowanceChargeTaxes,
  type CategoryTax,
  type DecimalLike,
  type DocumentTotals,
  type LineTaxes,
  type VatBreakdown,
  type VatCategory,
} from '@bo/kernel';
import type { AccountingCurrency, DocumentLine, RenderableDocument } from './model';

/**
 * What the renderers read of a document's taxes: the kernel's TaxDocument (model.ts `taxes`), or,
 * for a document that has none, the same figures as its stored lines and totals state them. Every
 * amount is the model's; nothing here computes a tax.
 */
export interface DocumentTaxes {
  /** Decimals of every amount: the currency's minor unit. */
  minor_unit: number;
  lines: readonly Pick<LineTaxes, 'tax_category' | 'tax_rate' | 'net' | 'tax' | 'gross'>[];
  allowances_charges: readonly AllowanceChargeTaxes[];
  breakdown: readonly VatBreakdown[];
  totals: Pick<
    DocumentTotals,
    | 'line_net_total'
    | 'allowance_total'
    | 'charge_total'
    | 'tax_exclusive_amount'
    | 'tax_total'
    | 'tax_inclusive_amount'
    | 'rounding_amount'
    | 'payable_amount'
  >;
}

/**
 * A document made before VAT categories: each line is `S` or `Z` by its rate, the breakdown per
 * rate sums the stored lines (net and tax), highest rate first, and the totals are the stored ones,
 * with no allowance, charge or rounding amount. This is what these documents always rendered.
 */
function storedTaxes(doc: Pick<RenderableDocument, 'currency' | 'lines' | 'totals'>): DocumentTaxes {
  const lines = doc.lines.map((l: DocumentLine) => ({
    tax_category: defaultCategory(l.tax_rate),
    tax_rate: dec(l.tax_rate),
    net: dec(l.subtotal),
    tax: dec(l.tax_amount),
    gross: dec(l.total),
  }));
  const groups = new Map<string, VatBreakdown>();
  for (const l of lines) {
    const key = `${l.tax_category} ${l.tax_rate.toFixed()}`;
    const group = groups.get(key) ?? {
      tax_category: l.tax_category,
      tax_rate: l.tax_rate,
      taxable_amount: dec(0),
      tax_amount: dec(0),
      exemption_reason: null,
      exemption_code: null,
    };
    group.taxable_amount = group.taxable_amount.plus(l.net);
    group.tax_amount = group.tax_amount.plus(l.tax);
    groups.set(key, group);
  }
  const subtotal = dec(doc.totals.subtotal);
  const total = dec(doc.totals.total);
  return {
    minor_unit: documentMinorUnit(doc.currency.trim() || null) ?? 2,
    lines,
    allowances_charges: [],
    breakdown: [...groups.values()].sort((a, b) => b.tax_rate.comparedTo(a.tax_rate)),
    totals: {
      line_net_total: subtotal,
      allowance_total: dec(0),
      charge_total: dec(0),
      tax_exclusive_amount: subtotal,
      tax_total: dec(doc.totals.tax_amount),
      tax_inclusive_amount: total,
      rounding_amount: dec(0),
      payable_amount: total,
    },
  };
}

/** The document's taxes as the renderers print them: its `taxes` when it has them, else its stored amounts. */
export function documentTaxes(doc: Pick<RenderableDocument, 'currency' | 'lines' | 'totals' | 'taxes'>): DocumentTaxes {
  if (!doc.taxes) return storedTaxes(doc);
  if (doc.taxes.lines.length !== doc.lines.length) {
    throw new Error(`the document has ${doc.lines.length} lines and taxes for ${doc.taxes.lines.length}: one entry per line, in order`);
  }
  return doc.taxes;
}

/** The VAT categories a document names on its lines, allowances and charges (without `taxes`: S or Z by each line's rate). */
export function documentCategories(doc: Pick<RenderableDocument, 'lines' | 'taxes'>): Set<VatCategory> {
  if (!doc.taxes) return new Set(doc.lines.map((l) => defaultCategory(l.tax_rate)));
  return new Set([...doc.taxes.lines.map((l) => l.tax_category), ...doc.taxes.allowances_charges.map((a) => a.tax_category)]);
}

/** An amount as an e-invoice writes it: with exactly the currency's decimals (JPY 1000, EUR 1000.00). */
export function amount(value: DecimalLike, places: number): string {
  const d = dec(value);
  // Never `-0.00`: a zero that came out of a negation is still zero.
  return (d.isZero() ? d.abs() : d).toFixed(places);
}

/**
 * BT-6 and BT-111 for a document in a currency other than the seller's accounting currency: its VAT
 * in that currency as the kernel's `vatInAccountingCurrency` decides it (each category's VAT
 * converted at the exchange rate and rounded on its own, BT-111 their sum), the figures the journal
 * posts. Null when the document is in that currency already.
 */
export function accountingCurrency(
  documentCurrency: string,
  breakdown: readonly CategoryTax[],
  accounting: { currency: string; exchange_rate: DecimalLike },
): AccountingCurrency | null {
  const code = accounting.currency.trim().toUpperCase();
  if (code === documentCurrency.trim().toUpperCase()) return null;
  const vat = vatInAccountingCurrency(breakdown, accounting.exchange_rate, code);
  return { currency: code, exchange_rate: dec(accounting.exchange_rate).toFixed(), tax_total: vat.tax_total.toFixed(vat.minor_unit) };
}
