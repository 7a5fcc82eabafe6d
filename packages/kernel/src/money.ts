import Decimal from 'decimal.js';

/** Exact decimal arithmetic; rounding is half-up as docs/design.md fixes it. */
export const Dec = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

export type DecimalLike = Decimal | string | number;

export function dec(value: DecimalLike | null | undefined): Decimal {
  // A Dec is immutable: it is its own value, not copied (a ledger replay reads each amount many times).
  // Every decimal.js clone shares one prototype, so `instanceof` alone would let another clone's
  // precision through: the instance's own constructor tells them apart.
  return value instanceof Dec && value.constructor === Dec ? value : new Dec(value ?? 0);
}

export function round2(value: DecimalLike): Decimal {
  return roundTo(value, 2);
}

/** Half-up to `places` decimals: an amount in a currency whose minor unit has `places` digits. */
export function roundTo(value: DecimalLike, places: number): Decimal {
  return dec(value).toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
}

/**
 * An amount as text: as exact as it is (a currency may have three or four decimals, KWD's fils), and
 * with at least two, as every amount of a two-decimal currency always read.
 */
export function amountText(value: DecimalLike): string {
  const d = dec(value);
  return d.decimalPlaces() > 2 ? d.toFixed() : d.toFixed(2);
}

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/** For JSON, which carries numbers: exact for amounts with few digits, as every stored one has. */
export function toNumber(value: DecimalLike | null | undefined): number {
  // A plain decimal string (as PostgreSQL returns numerics) reads to the same double directly.
  if (typeof value === 'string' && PLAIN_DECIMAL.test(value)) return Number(value);
  return Number(dec(value).toFixed());
}

export function sum(values: DecimalLike[]): Decimal {
  return values.reduce<Decimal>((acc, v) => acc.plus(dec(v)), new Dec(0));
}

export interface LineInput {
  quantity: DecimalLike;
  price: DecimalLike;
  discount?: DecimalLike | null;
  tax_rate: DecimalLike;
  tax_included: boolean;
}

export interface LineAmounts {
  subtotal: Decimal;
  tax_amount: Decimal;
  total: Decimal;
  /** What the discount took off, before tax or including it as the price did. */
  discount_amount: Decimal;
}

/**
 * Line arithmetic (spec 2.6, docs/design.md section 4): subtotal = qty x price x (1 - discount/100),
 * tax = subtotal x rate/100, total = subtotal + tax. With tax included the price holds the tax:
 * total = qty x price x (1 - discount/100) and subtotal = total / (1 + rate/100).
 * Each amount is rounded half-up on its own, to `places` decimals (the currency's minor unit; cents
 * unless told), and total always equals subtotal + tax. This is the line as the `line` rounding policy
 * prints it (tax/calculate.ts).
 */
export function computeLine(line: LineInput, places = 2): LineAmounts {
  const round = (value: Decimal) => roundTo(value, places);
  const gross = dec(line.quantity).times(dec(line.price));
  const net = gross.times(new Dec(1).minus(dec(line.discount).div(100)));
  const rate = dec(line.tax_rate).div(100);
  const discount_amount = round(gross.minus(net));
  if (line.tax_included) {
    const total = round(net);
    const subtotal = round(net.div(rate.plus(1)));
    return { subtotal, tax_amount: total.minus(subtotal), total, discount_amount };
  }
  const subtotal = round(net);
  const tax_amount = round(net.times(rate));
  return { subtotal, tax_amount, total: subtotal.plus(tax_amount), discount_amount };
}

/** Document totals are sums of the rounded lines. */
export function sumLines(lines: LineAmounts[]): LineAmounts {
  return {
    subtotal: sum(lines.map((l) => l.subtotal)),
    tax_amount: sum(lines.map((l) => l.tax_amount)),
    total: sum(lines.map((l) => l.total)),
    discount_amount: sum(lines.map((l) => l.discount_amount)),
  };
}
