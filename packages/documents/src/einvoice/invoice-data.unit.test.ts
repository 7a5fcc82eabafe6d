import { computeLine } from '@bo/kernel';
import type { DocumentLine } from '../model';
import { documentTaxes } from '../taxes';
import { taxRoundingProblems as problemsOf } from './invoice-data';

/** The problems of a document from before VAT categories with these stored lines (the totals play no part). */
function taxRoundingProblems(lines: DocumentLine[], currency: string): string[] {
  const totals = { subtotal: '0', tax_amount: '0', total: '0' };
  return problemsOf(documentTaxes({ currency, lines, totals }).breakdown, currency);
}

/** `count` lines of 1.00 including 20 % tax, with the amounts the service stores: 0.83 net and 0.17 tax each. */
function taxIncludedLines(count: number): DocumentLine[] {
  const spec = { name: 'Sticker', quantity: '1', price: '1.00', discount: '0', tax_rate: '20', tax_included: true };
  const a = computeLine(spec);
  const line = { ...spec, subtotal: a.subtotal.toFixed(2), tax_amount: a.tax_amount.toFixed(2), total: a.total.toFixed(2) };
  return Array.from({ length: count }, () => line);
}

describe('taxRoundingProblems (BR-CO-17)', () => {
  test('300 tax-included lines drift 1.20 from their category tax: refused, saying why', () => {
    const lines = taxIncludedLines(300);
    expect([lines[0]!.subtotal, lines[0]!.tax_amount]).toEqual(['0.83', '0.17']);
    const problems = taxRoundingProblems(lines, 'EUR');
    expect(problems).toEqual([
      'the 20 % lines carry 51.00 EUR of tax summed line by line, while 20 % of their 249.00 is 49.80: 1.20 apart, and EN 16931 (BR-CO-17) accepts less than 1.00 ' +
        "(each line's tax is rounded to cents and over many lines the roundings add up; split the invoice into smaller ones)",
    ]);
  });

  test('240 of them drift 0.96: within the tolerance; exactly 1.00 apart is not (the UBL rules test strictly)', () => {
    expect(taxRoundingProblems(taxIncludedLines(240), 'EUR')).toEqual([]);
    expect(taxRoundingProblems(taxIncludedLines(250), 'EUR')).toHaveLength(1);
  });

  test('each category is checked on its own; lines whose tax needs no rounding never drift', () => {
    const plainLine = (tax_rate: string) => {
      const spec = { name: 'Plain', quantity: '1', price: '1.00', discount: '0', tax_rate, tax_included: false };
      const a = computeLine(spec);
      return { ...spec, subtotal: a.subtotal.toFixed(2), tax_amount: a.tax_amount.toFixed(2), total: a.total.toFixed(2) };
    };
    expect(taxRoundingProblems([...Array.from({ length: 500 }, () => plainLine('20')), ...taxIncludedLines(10)], 'EUR')).toEqual([]);
    // 0.83 before tax at 20 % rounds 0.166 up to 0.17 on each line too: 500 of them drift 2.00.
    const drifting = { ...plainLine('20'), price: '0.83', subtotal: '0.83', tax_amount: '0.17', total: '1.00' };
    expect(
      taxRoundingProblems(
        Array.from({ length: 500 }, () => drifting),
        'EUR',
      ),
    ).toEqual([expect.stringMatching(/85\.00 EUR .* 83\.00: 2\.00 apart/)]);
    const mixed = taxRoundingProblems([...Array.from({ length: 500 }, () => plainLine('5')), ...taxIncludedLines(300)], 'EUR');
    expect(mixed).toHaveLength(1);
    expect(mixed[0]).toMatch(/^the 20 % lines/);
  });
});
