import { matches, matchesAny, patternProblems } from './patterns';

const known = ['invoicing.invoice.validated', 'invoicing.invoice.paid', 'partners.partner.created'];

describe('event patterns', () => {
  it('match a type exactly, every type with *, or whole leading segments with .*', () => {
    expect(matches('*', 'partners.partner.created')).toBe(true);
    expect(matches('invoicing.*', 'invoicing.invoice.paid')).toBe(true);
    expect(matches('invoicing.invoice.*', 'invoicing.invoice.paid')).toBe(true);
    expect(matches('invoicing.*', 'invoicingx.invoice.paid')).toBe(false);
    expect(matches('invoicing.invoice.paid', 'invoicing.invoice.paid')).toBe(true);
    expect(matches('invoicing.invoice.paid', 'invoicing.invoice.validated')).toBe(false);
    expect(matchesAny(['partners.*', 'invoicing.invoice.paid'], 'invoicing.invoice.paid')).toBe(true);
    expect(matchesAny(['partners.*'], 'invoicing.invoice.paid')).toBe(false);
  });

  it('name each pattern that matches no known type, or is not a prefix pattern, by its index', () => {
    expect(patternProblems(['*', 'invoicing.*', 'partners.partner.created'], known)).toEqual([]);
    expect(patternProblems(['invoicing.invoice.valdated', 'sales.*', 'invoicing*', '*.paid'], known).map((p) => p.index)).toEqual([
      0, 1, 2, 3,
    ]);
  });
});
