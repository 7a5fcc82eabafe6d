import { dec, type DecimalLike } from '@bo/kernel';

/** Cents as e-invoices write them: always two decimals. */
export function cents(value: DecimalLike): string {
  return dec(value).toFixed(2);
}

/** A plain decimal without trailing zeros (quantities, rates, unit prices). */
export function plain(value: DecimalLike): string {
  return dec(value).toFixed();
}
