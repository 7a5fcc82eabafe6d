import { decideBooksChange, type Books } from './books';

const open: Books = { accountingCurrency: null, lockDate: null, posted: false };
const postedInEur: Books = { accountingCurrency: 'EUR', lockDate: '2026-01-31', posted: true };

describe('decideBooksChange', () => {
  it('given books that never posted, when the currency is set, changed or cleared, then it is', () => {
    expect(decideBooksChange(open, { accountingCurrency: 'EUR' })).toEqual({
      kind: 'changed',
      books: { accountingCurrency: 'EUR', lockDate: null },
    });
    const unposted = { ...open, accountingCurrency: 'EUR' };
    expect(decideBooksChange(unposted, { accountingCurrency: 'USD' })).toMatchObject({
      kind: 'changed',
      books: { accountingCurrency: 'USD' },
    });
    expect(decideBooksChange(unposted, { accountingCurrency: null })).toMatchObject({
      kind: 'changed',
      books: { accountingCurrency: null },
    });
  });

  it('given books that posted, when another currency or none is asked, then it is refused on default_currency', () => {
    for (const accountingCurrency of ['USD', null]) {
      const decision = decideBooksChange(postedInEur, { accountingCurrency });
      expect(decision).toMatchObject({ kind: 'refused', refusal: { code: 'validation_failed', field: 'default_currency' } });
      if (decision.kind === 'refused') expect(decision.refusal.message).toContain('EUR');
    }
    // Books that posted without an accounting currency cannot take one either: their entries are in the documents' currencies.
    expect(decideBooksChange({ ...open, posted: true }, { accountingCurrency: 'EUR' })).toMatchObject({
      kind: 'refused',
      refusal: { field: 'default_currency' },
    });
  });

  it('given books that posted, when the same currency is asked, then nothing changes', () => {
    expect(decideBooksChange(postedInEur, { accountingCurrency: 'EUR' })).toEqual({
      kind: 'unchanged',
      books: { accountingCurrency: 'EUR', lockDate: '2026-01-31' },
    });
    expect(decideBooksChange(postedInEur, {})).toMatchObject({ kind: 'unchanged' });
  });

  it('given any books, when the lock date moves forward, back or is cleared, then it does, the currency kept', () => {
    for (const lockDate of ['2026-03-31', '2025-12-31', null]) {
      expect(decideBooksChange(postedInEur, { lockDate })).toEqual({ kind: 'changed', books: { accountingCurrency: 'EUR', lockDate } });
    }
    // Both at once: a refused currency refuses the lock date with it, so nothing changes.
    expect(decideBooksChange(postedInEur, { accountingCurrency: 'USD', lockDate: '2026-03-31' })).toMatchObject({ kind: 'refused' });
  });
});
