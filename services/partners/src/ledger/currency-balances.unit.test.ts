import { weighBalances, type CurrencyBalanceRow } from './currency-balances';

const row = (currency: string, balance: number, documents_total = 0, documents_accounting = 0, committed = 0): CurrencyBalanceRow => ({
  currency,
  balance,
  receivable: balance,
  committed,
  documents_total,
  documents_accounting,
});

describe('a partner balance per currency, weighed in the partner’s', () => {
  it("weighs a JPY invoice for a EUR customer at its document's rate: 100,000 JPY at 0.0062 is 620 EUR", () => {
    const weighed = weighBalances([row('JPY', 100000, 100000, 620)], 'EUR', 'EUR');
    expect([weighed.currency, weighed.balance.toFixed(2), weighed.receivable.toFixed(2), weighed.committed.toFixed(2)]).toEqual([
      'EUR',
      '620.00',
      '620.00',
      '0.00',
    ]);
    expect(weighed.balances).toEqual([{ currency: 'JPY', balance: 100000, receivable: 100000, committed: 0 }]);
  });

  it('adds the currencies only once weighed, and leaves a single-currency partner as it was', () => {
    const weighed = weighBalances([row('EUR', 100.5, 0, 0, 20), row('JPY', 50000, 100000, 620)], 'EUR', 'EUR');
    expect([weighed.balance.toFixed(2), weighed.committed.toFixed(2)]).toEqual(['410.50', '20.00']);
    const yen = weighBalances([row('JPY', 100000)], 'JPY', 'EUR');
    expect([yen.currency, yen.balance.toFixed()]).toEqual(['JPY', '100000']);
    const kwd = weighBalances([row('KWD', 7.004)], null, 'KWD');
    expect([kwd.currency, kwd.balance.toFixed()]).toEqual(['KWD', '7.004']);
  });

  it("weighs in a partner currency other than the organization's through the accounting currency", () => {
    // Books in EUR; a USD customer whose USD documents went at 0.92, with a JPY one at 0.0062.
    const weighed = weighBalances([row('USD', 100, 1000, 920), row('JPY', 100000, 100000, 620)], 'USD', 'EUR');
    expect(weighed.balance.toFixed(2)).toBe('773.91'); // 100 + 620 / 0.92
  });

  it('counts a currency it has no rate for as it is, and keeps the currencies apart in balances', () => {
    const weighed = weighBalances([row('', 10), row('USD', 5)], 'EUR', 'EUR');
    expect(weighed.balance.toFixed(2)).toBe('15.00');
    expect(weighed.balances.map((b) => b.currency)).toEqual([null, 'USD']);
    expect(weighBalances([], null, null)).toMatchObject({ currency: null, balances: [] });
  });
});
