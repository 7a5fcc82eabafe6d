import { decideDocumentTaxes, type TaxDocumentInput } from './index';

/**
 * Stated VAT (`stated_tax`): a vendor bill made by import keeps its supplier's VAT per category
 * (BT-117) when the supplier's rounding alone sets it apart from what the bill's rows compute
 * (docs/inbound.md, "The sender's VAT kept").
 */

// Three lines of 0.63 (0.625 rounded) at 20 %: each line's VAT 0.125 → 0.13 under `line` (0.39), the base 1.89 × 20 % → 0.38 under `document`.
const line = (stated?: string) => ({
  quantity: '1',
  price: '0.625',
  tax_rate: '20',
  tax_included: false,
  ...(stated === undefined ? {} : { stated_tax: stated }),
});
const bill = (over: Partial<TaxDocumentInput>): TaxDocumentInput => ({
  currency: 'EUR',
  rounding: 'document',
  parties: null,
  lines: [line(), line(), line()],
  ...over,
});
const decided = (input: TaxDocumentInput) => {
  const d = decideDocumentTaxes(input);
  if (!d.ok) throw new Error(JSON.stringify(d.errors));
  return d.document;
};

describe('stated VAT', () => {
  test('given no stated VAT, when computed by document, then the category takes its base times its rate', () => {
    const doc = decided(bill({}));
    expect(doc.breakdown.map((b) => b.tax_amount.toFixed(2))).toEqual(['0.38']);
  });

  test("given the rows state the sender's VAT a cent apart, when computed, then the category and the totals carry it and the rows add up to it", () => {
    const doc = decided(bill({ lines: [line('0.13'), line('0.13'), line('0.13')] }));
    expect(doc.breakdown.map((b) => b.tax_amount.toFixed(2))).toEqual(['0.39']);
    expect(doc.lines.map((l) => l.tax.toFixed(2))).toEqual(['0.13', '0.13', '0.13']);
    expect([doc.totals.tax_total, doc.totals.tax_inclusive_amount, doc.totals.payable_amount].map((t) => t.toFixed(2))).toEqual([
      '0.39',
      '2.28',
      '2.28',
    ]);
    expect(doc.totals.rounding_amount.isZero()).toBe(true);
  });

  test('given an allowance and a charge of the category, when their VAT is stated too, then the category is what the rows add up to, signed', () => {
    const doc = decided(
      bill({
        lines: [line('0.13'), line('0.13'), line('0.13')],
        allowances_charges: [
          { charge: false, amount: '0.50', reason: 'Discount', tax_category: 'S', tax_rate: '20', stated_tax: '0.10' },
          { charge: true, amount: '0.30', reason: 'Freight', tax_category: 'S', tax_rate: '20', stated_tax: '0.06' },
        ],
      }),
    );
    // 0.39 − 0.10 + 0.06
    expect(doc.breakdown[0]!.tax_amount.toFixed(2)).toBe('0.35');
    expect(doc.totals.payable_amount.minus(doc.totals.tax_inclusive_amount).isZero()).toBe(true);
  });

  test('given a stated VAT further from the computed one than one cent per row, when decided, then it is refused naming the row', () => {
    const d = decideDocumentTaxes(bill({ lines: [line('0.15'), line('0.15'), line('0.15')] }));
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.errors.map((e) => e.field)).toEqual(['line_items.0.stated_tax']);
      expect(d.errors[0]!.message).toMatch(/0\.45.*compute 0\.38/);
    }
  });

  test('given some rows of a category state their VAT and others do not, when decided, then the one without is named', () => {
    const d = decideDocumentTaxes(bill({ lines: [line('0.13'), line('0.13'), line()] }));
    expect(d.ok ? [] : d.errors.map((e) => e.field)).toEqual(['line_items.2.stated_tax']);
  });

  test('given a stated VAT on a tax-inclusive line or finer than the currency, when decided, then each is refused', () => {
    const d = decideDocumentTaxes(
      bill({ lines: [{ ...line('0.125'), tax_rate: '10' }, { ...line('0.13'), tax_included: true }, line('0.13'), line('0.13')] }),
    );
    expect(d.ok ? [] : d.errors.map((e) => e.field)).toEqual(['line_items.0.stated_tax', 'line_items.1.stated_tax']);
  });

  test('given the stated VAT of one category, when computed, then the other categories are computed as ever', () => {
    const doc = decided(bill({ lines: [line('0.13'), line('0.13'), line('0.13'), { ...line(), tax_rate: '10' }] }));
    expect(doc.breakdown.map((b) => [b.tax_rate.toFixed(), b.tax_amount.toFixed(2)])).toEqual([
      ['20', '0.39'],
      ['10', '0.06'],
    ]);
  });
});
