import { MissingRate, Money, NO_CURRENCY, weighIn } from './currency-money';

describe('Money', () => {
  it('adds, subtracts and compares exactly within one currency', () => {
    const a = Money.of('0.1', 'EUR');
    const b = Money.of('0.2', 'EUR');
    expect(a.plus(b).amount.toFixed()).toBe('0.3');
    expect(b.minus(a).toString()).toBe('0.10 EUR');
    expect(a.compare(b)).toBe(-1);
    expect(b.greaterThan(a)).toBe(true);
    expect(a.plus(b).lessThanOrEqualTo(Money.of('0.30', 'EUR'))).toBe(true);
    expect(Money.sum('EUR', [a, b, a]).toString()).toBe('0.40 EUR');
    expect(Money.sum('JPY', []).toString()).toBe('0 JPY');
  });

  it('writes the minor unit of its currency, and more decimals only when the amount has them', () => {
    expect(Money.of(240, 'EUR').toString()).toBe('240.00 EUR');
    expect(Money.of(100000, 'JPY').toString()).toBe('100000 JPY');
    expect(Money.of('10.005', 'KWD').toString()).toBe('10.005 KWD');
    expect(Money.of('1000.5', 'JPY').toString()).toBe('1000.5 JPY');
    expect(Money.of('1000.5', 'JPY').rounded().toString()).toBe('1001 JPY');
  });

  it('refuses a code that is no currency with a minor unit', () => {
    expect(() => Money.of(1, 'EURO')).toThrow(RangeError);
    expect(() => Money.of(1, 'XAU')).toThrow('XAU is not an ISO 4217 currency with a minor unit');
    // A document made before documents took a currency has none: two decimals, written without a code.
    expect(Money.of('800.5', NO_CURRENCY).toString()).toBe('800.50');
  });

  it('does not let two currencies meet: a type error, and a run-time error where the types cannot tell', () => {
    const eur = Money.of(1, 'EUR');
    const jpy = Money.of(1, 'JPY');
    // @ts-expect-error: EUR and JPY cannot be added
    expect(() => eur.plus(jpy)).toThrow(TypeError);
    // @ts-expect-error: nor compared
    expect(() => eur.compare(jpy)).toThrow('cannot compare JPY and EUR: convert at a rate first');
    const known: Money<string>[] = [eur, jpy];
    expect(() => known[0]!.minus(known[1]!)).toThrow(TypeError);
  });

  it('converts only at an explicit rate, half-up to the target minor unit', () => {
    // The case: 100,000 JPY at 0.0062 EUR per yen.
    expect(Money.of(100000, 'JPY').convert('0.0062', 'EUR').toString()).toBe('620.00 EUR');
    expect(Money.of('1.005', 'KWD').convert('3.25', 'EUR').toString()).toBe('3.27 EUR'); // 3.26625
    expect(Money.of('12.35', 'USD').convert('0.9234', 'EUR').toString()).toBe('11.40 EUR'); // 11.40399
    expect(Money.of('0.5', 'EUR').convert(1, 'JPY').toString()).toBe('1 JPY'); // half up
    expect(Money.of('-0.5', 'EUR').convert(1, 'JPY').toString()).toBe('-1 JPY'); // half away from zero
    expect(Money.of(3, 'EUR').convert(1, 'EUR').toString()).toBe('3.00 EUR');
  });

  it('refuses a rate that is not above 0, and a rate other than 1 to its own currency', () => {
    expect(() => Money.of(1, 'EUR').convert(0, 'USD')).toThrow(RangeError);
    expect(() => Money.of(1, 'EUR').convert('-1.2', 'USD')).toThrow(RangeError);
    expect(() => Money.of(1, 'EUR').convert('1.1', 'EUR')).toThrow('EUR converts to itself at 1, not 1.1');
  });

  describe('weighIn', () => {
    it("weighs each amount in the target currency at its own rate: the issue's EUR customer with a JPY invoice", () => {
      const weighed = weighIn('EUR', 'EUR', null, [
        { money: Money.of(100000, 'JPY'), rate: '0.0062' },
        { money: Money.of('620.00', 'EUR'), rate: null },
        { money: Money.of(-5000, 'JPY'), rate: '0.0065' },
      ]);
      expect(weighed.toString()).toBe('1207.50 EUR'); // 620 + 620 - 32.50
    });

    it('goes through the accounting currency when the target is another one, converting each amount once', () => {
      // Books in EUR, a USD customer (1 USD = 0.92 EUR): a JPY document at 0.0062 EUR per yen.
      const weighed = weighIn('USD', 'EUR', '0.92', [
        { money: Money.of(100000, 'JPY'), rate: '0.0062' },
        { money: Money.of(92, 'EUR'), rate: null },
        { money: Money.of('10.00', 'USD'), rate: null },
      ]);
      expect(weighed.toString()).toBe('783.91 USD'); // 673.913... + 100 + 10
    });

    it('names the rate it lacks', () => {
      expect(() => weighIn('EUR', 'EUR', null, [{ money: Money.of(1, 'JPY'), rate: null }])).toThrow(
        new MissingRate('no rate of JPY to EUR to weigh 1 JPY in EUR'),
      );
      expect(() => weighIn('USD', 'EUR', null, [{ money: Money.of(1, 'EUR'), rate: null }])).toThrow(MissingRate);
      expect(weighIn('USD', 'EUR', null, [{ money: Money.of(1, 'USD'), rate: null }]).toString()).toBe('1.00 USD');
    });
  });
});
