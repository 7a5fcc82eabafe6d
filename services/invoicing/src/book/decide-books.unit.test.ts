import { booksReply, decideBooksConfiguration } from './decide-books';

const inEur = { accountingCurrency: 'EUR', lockDate: '2026-01-31', posted: true };

describe('deciding a configure of the books', () => {
  it('given books in EUR that posted, when the lock date moves, then it changes and the currency does not', () => {
    expect(decideBooksConfiguration(inEur, { lock_date: '2026-02-28' })).toEqual({
      books: { accountingCurrency: 'EUR', lockDate: '2026-02-28' },
      changed: true,
      currencyChanged: false,
    });
  });

  it('given books, when the lock date is cleared, then the books reopen', () => {
    expect(decideBooksConfiguration(inEur, { lock_date: null })).toMatchObject({ books: { lockDate: null }, changed: true });
  });

  it('given books, when asked what they are already, then nothing changes', () => {
    expect(decideBooksConfiguration(inEur, { default_currency: 'EUR', lock_date: '2026-01-31' })).toMatchObject({
      changed: false,
      currencyChanged: false,
    });
    expect(decideBooksConfiguration(inEur, {})).toMatchObject({ changed: false });
  });

  it('given books that never posted, when another currency is asked, then it changes, the currency with it', () => {
    expect(decideBooksConfiguration({ ...inEur, posted: false }, { default_currency: 'USD' })).toEqual({
      books: { accountingCurrency: 'USD', lockDate: '2026-01-31' },
      changed: true,
      currencyChanged: true,
    });
  });

  it('given books that posted, when another currency is asked, then it is refused on default_currency', () => {
    expect(() => decideBooksConfiguration(inEur, { default_currency: 'USD' })).toThrow(
      expect.objectContaining({ refusal: 'book.booksChangeRefused', code: 'validation_failed', message: expect.stringContaining('EUR') }),
    );
  });

  it('given the books and their version, then the reply shows them', () => {
    expect(booksReply({ accountingCurrency: 'EUR', lockDate: null }, 4)).toEqual({
      message: 'Books configured',
      books: { default_currency: 'EUR', lock_date: null },
      books_version: 4,
    });
  });
});
