import Decimal from 'decimal.js';

/** Exact decimal arithmetic with the repository's rounding (half-up, docs/design.md); amounts arrive as numeric strings. */
export const Dec = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

export function dec(value: string | number | Decimal | null | undefined): Decimal {
  return new Dec(value ?? 0);
}

/** Cents as e-invoices write them: always two decimals. */
export function cents(value: string | number | Decimal): string {
  return dec(value).toFixed(2);
}

/** A plain decimal without trailing zeros (quantities, rates, unit prices). */
export function plain(value: string | number | Decimal): string {
  return dec(value).toFixed();
}
