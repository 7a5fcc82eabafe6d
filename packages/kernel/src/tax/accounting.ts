import { dec, roundTo, sum, type Dec, type DecimalLike } from '../money';
import { minorUnit } from './currencies';

/** A VAT breakdown row (BG-23) as the conversion reads it. */
export interface CategoryTax {
  tax_category: string;
  tax_rate: DecimalLike;
  tax_amount: DecimalLike;
}

/** A document's VAT in the accounting currency: per breakdown row (in its order), and their sum (BT-111). */
export interface AccountingVat {
  /** ISO 4217, upper case. */
  currency: string;
  /** Decimals of every amount: the accounting currency's minor unit. */
  minor_unit: number;
  /** Each row's VAT (BT-117) converted: what the journal posts on the VAT account for that category and rate. */
  categories: Array<{ tax_category: string; tax_rate: Dec; tax_amount: Dec }>;
  /** BT-111 = Σ categories: the VAT total the document states in the accounting currency. */
  tax_total: Dec;
}

/**
 * The VAT of a document in another currency, in the accounting currency, decided once for the
 * document (BT-111) and for the journal's VAT lines, and so for the VAT report (docs/invoicing.md,
 * "Another currency"): each category's VAT (BT-117) times `rate` (units of the accounting currency
 * per unit of the document's), rounded half-up to the accounting currency's minor unit on its own,
 * and BT-111 their sum. Converting BT-110 as a whole would round once more and may differ by a cent
 * from what the journal posts per category.
 */
export function vatInAccountingCurrency(breakdown: readonly CategoryTax[], rate: DecimalLike, accountingCurrency: string): AccountingVat {
  const currency = accountingCurrency.trim().toUpperCase();
  const places = minorUnit(currency);
  if (places === null || places === undefined) throw new Error(`${currency} is no ISO 4217 currency with a minor unit`);
  const r = dec(rate);
  if (!r.gt(0)) throw new Error(`the exchange rate to ${currency} is ${r.toFixed()}, not above 0`);
  const categories = breakdown.map((b) => ({
    tax_category: b.tax_category,
    tax_rate: dec(b.tax_rate),
    tax_amount: roundTo(dec(b.tax_amount).times(r), places),
  }));
  return { currency, minor_unit: places, categories, tax_total: sum(categories.map((c) => c.tax_amount)) };
}
