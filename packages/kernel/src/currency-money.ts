import { dec, roundTo, type Dec, type DecimalLike } from './money';
import { minorUnit } from './tax/currencies';

/**
 * An exact amount in one ISO 4217 currency. Two amounts meet (add, subtract, compare) only in the same
 * currency: `Money<'EUR'>` and `Money<'JPY'>` do not type-check together, and amounts whose currency
 * is only known at run time (`Money<string>`) throw on meeting another currency. Another currency is
 * reached only through an explicit rate (`convert`), rounded half-up to the target currency's minor
 * unit: the one conversion policy, as the journal converts a document's lines.
 */
export class Money<C extends string = string> {
  private constructor(
    readonly amount: Dec,
    readonly currency: C,
  ) {}

  /** `amount` in `currency` (an ISO 4217 code with a minor unit, upper case), exactly as given. */
  static of<C extends string>(amount: DecimalLike, currency: C): Money<C> {
    placesOf(currency);
    return new Money(dec(amount), currency);
  }

  static zero<C extends string>(currency: C): Money<C> {
    return Money.of(0, currency);
  }

  /** The sum of `amounts`, all in `currency` (zero when there are none). */
  static sum<C extends string>(currency: C, amounts: ReadonlyArray<Money<C>>): Money<C> {
    return amounts.reduce((acc, m) => acc.plus(m), Money.zero(currency));
  }

  /** Decimals of the currency's minor unit (JPY 0, EUR 2, KWD 3). */
  get places(): number {
    return placesOf(this.currency);
  }

  plus(other: Money<C>): Money<C> {
    return new Money(this.amount.plus(this.same(other, 'add').amount), this.currency);
  }

  minus(other: Money<C>): Money<C> {
    return new Money(this.amount.minus(this.same(other, 'subtract').amount), this.currency);
  }

  negated(): Money<C> {
    return new Money(this.amount.negated(), this.currency);
  }

  /** −1, 0 or 1 as this is below, equal to or above `other`. */
  compare(other: Money<C>): -1 | 0 | 1 {
    return this.amount.comparedTo(this.same(other, 'compare').amount) as -1 | 0 | 1;
  }

  greaterThan(other: Money<C>): boolean {
    return this.compare(other) > 0;
  }

  lessThanOrEqualTo(other: Money<C>): boolean {
    return this.compare(other) <= 0;
  }

  max(other: Money<C>): Money<C> {
    return this.compare(other) >= 0 ? this : other;
  }

  isZero(): boolean {
    return this.amount.isZero();
  }

  /** Half-up to the currency's minor unit. */
  rounded(): Money<C> {
    return new Money(roundTo(this.amount, this.places), this.currency);
  }

  /**
   * The worth of this amount in `to` at `rate` (units of `to` per one unit of this currency), rounded
   * half-up to `to`'s minor unit. In its own currency only a rate of 1 converts.
   */
  convert<T extends string>(rate: DecimalLike, to: T): Money<T> {
    const r = dec(rate);
    if (!r.isFinite() || r.lessThanOrEqualTo(0)) throw new RangeError(`an exchange rate is above 0, not ${r.toString()}`);
    if ((to as string) === this.currency && !r.equals(1))
      throw new RangeError(`${this.currency} converts to itself at 1, not ${r.toFixed()}`);
    return new Money(roundTo(this.amount.times(r), placesOf(to)), to);
  }

  /** The amount with at least its currency's decimals (more when it has them), then the code: `240.00 EUR`, `100000 JPY`; no code for NO_CURRENCY. */
  toString(): string {
    const amount = this.amount.toFixed(Math.max(this.places, this.amount.decimalPlaces()));
    return this.currency === NO_CURRENCY ? amount : `${amount} ${this.currency}`;
  }

  private same(other: Money<C>, what: string): Money<C> {
    if ((other.currency as string) !== this.currency)
      throw new TypeError(`cannot ${what} ${other.currency} and ${this.currency}: convert at a rate first`);
    return other;
  }
}

/**
 * ISO 4217's code for "no currency involved": the currency of an amount on a document that has none
 * (made before documents took one), with two decimals as such a document has.
 */
export const NO_CURRENCY = 'XXX';

function placesOf(currency: string): number {
  if (currency === NO_CURRENCY) return 2;
  const places = minorUnit(currency);
  if (places === undefined || places === null) throw new RangeError(`${currency} is not an ISO 4217 currency with a minor unit`);
  return places;
}

/** A conversion weighIn needs and has no rate for: the caller names the rate to give. */
export class MissingRate extends RangeError {}

/** An amount and what one unit of its currency is worth in the accounting currency (null: no rate known). */
export interface Weighable {
  money: Money;
  /** Units of the accounting currency per one unit of `money.currency`; ignored in the accounting currency (1) and in the currency weighed in. */
  rate: DecimalLike | null;
}

/**
 * `items` weighed in `target`, each converted on its own: as it is in `target`, else at its rate to
 * the accounting currency and back at `targetRate` (units of the accounting currency per one unit of
 * `target`; 1 when `target` is the accounting currency). The one rule by which amounts in several
 * currencies become one figure (a partner's balance, a sale's credit exposure). Throws MissingRate
 * naming the currency whose rate is needed and unknown.
 */
export function weighIn<W extends string>(
  target: W,
  accounting: string,
  targetRate: DecimalLike | null,
  items: readonly Weighable[],
): Money<W> {
  const parts = items.map(({ money, rate }) => {
    if (money.currency === target) return Money.of(money.amount, target);
    const toAccounting = money.currency === accounting ? dec(1) : rate === null ? null : dec(rate);
    const fromAccounting = target === accounting ? dec(1) : targetRate === null ? null : dec(targetRate);
    if (toAccounting === null)
      throw new MissingRate(`no rate of ${money.currency} to ${accounting} to weigh ${money.toString()} in ${target}`);
    if (fromAccounting === null) throw new MissingRate(`no rate of ${target} to ${accounting} to weigh ${money.toString()} in ${target}`);
    return money.convert(toAccounting.div(fromAccounting), target);
  });
  return Money.sum(target, parts);
}
