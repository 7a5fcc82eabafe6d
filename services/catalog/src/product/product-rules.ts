import { catalog } from '@bo/contracts';
import { CATEGORY_RULES, dec, isVatCategory } from '@bo/kernel';

/** Minimum above maximum would make every reorder rule contradict itself. */
export function stockLevelsProblem(min: string | null | undefined, max: string | null | undefined): string | null {
  if (min === null || min === undefined || max === null || max === undefined) return null;
  return dec(min).greaterThan(dec(max))
    ? `min_stock_level ${dec(min).toFixed()} must not exceed max_stock_level ${dec(max).toFixed()}`
    : null;
}

/** The one rule of which products are stocked, shared with invoicing's cap on returns. */
export const carriesStock = catalog.carriesStock;

/**
 * A default VAT category that its rate contradicts (S above 0; Z, E, AE, K, G, O at 0), so that no
 * line takes a default the tax rules refuse; null when they agree or either is absent.
 */
export function taxDefaultProblem(rate: string | null | undefined, category: string | null | undefined): string | null {
  if (rate === null || rate === undefined || !category || !isVatCategory(category)) return null;
  const rule = CATEGORY_RULES[category].rate;
  if (rule === 'positive' && !dec(rate).gt(0)) return `tax_category ${category} needs a tax_rate above 0`;
  if (rule === 'zero' && !dec(rate).isZero()) return `tax_category ${category} has a tax_rate of 0`;
  return null;
}
