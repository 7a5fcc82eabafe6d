import { decideExchangeRate } from './decide-exchange-rate';

describe('deciding an exchange rate set', () => {
  const req = { currency: 'USD', date: '2026-03-02', rate: '1.0856' };

  it('given an organization keeping its books in EUR, when a USD rate is set, then it is kept against EUR', () => {
    expect(decideExchangeRate('EUR', req, 7)).toEqual({
      org_id: 7,
      currency: 'USD',
      rate_date: '2026-03-02',
      rate: '1.0856',
      accounting_currency: 'EUR',
    });
  });

  it('given an organization with no accounting currency yet, when a rate is set, then it is refused', () => {
    expect(() => decideExchangeRate(null, req, 7)).toThrow(expect.objectContaining({ code: 'invalid_state' }));
  });

  it('given the accounting currency itself, when its rate is set, then currency is refused: its rate is 1', () => {
    expect(() => decideExchangeRate('USD', req, 7)).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        errors: [{ field: 'currency', message: "USD is the organization's accounting currency: its rate is 1" }],
      }),
    );
  });
});
