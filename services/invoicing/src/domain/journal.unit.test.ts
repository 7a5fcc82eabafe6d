import fc from 'fast-check';
import { decideDocumentTaxes, sum, vatInAccountingCurrency, type TaxLineInput } from '@bo/kernel';
import { accountsFor, invoiceEntryLines, isBalanced, tradeMove, type EntryFigures, type JournalLine } from './journal';

const view = (lines: JournalLine[]) => lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)]);
const tags = (lines: JournalLine[]) =>
  lines.map((l) => [l.label, l.tax_category ?? null, l.tax_rate?.toFixed() ?? null, l.tax_base?.toFixed(2) ?? null]);

/** 200.00 at 20 % and 25.00 at 0 % (Z), rows printing one cent more than the breakdown. */
const figures: EntryFigures = {
  payable: '265.01',
  breakdown: [
    { tax_category: 'S', tax_rate: '20', taxable_amount: '200.00', tax_amount: '40.00' },
    { tax_category: 'Z', tax_rate: '0', taxable_amount: '25.00', tax_amount: '0.00' },
  ],
  rounding_amount: '0.01',
  places: 2,
};

describe('journal entries', () => {
  it('posts a sales invoice per VAT category and rate: revenue on the base, tax as the breakdown states it, BT-114 to rounding', () => {
    const lines = invoiceEntryLines('invoiceout', figures, accountsFor('invoiceout', {}));
    expect(view(lines)).toEqual([
      ['1200 Accounts Receivable', '265.01', '0.00'],
      ['4000 Sales Revenue', '0.00', '200.00'],
      ['2200 Tax Payable', '0.00', '40.00'],
      ['4000 Sales Revenue', '0.00', '25.00'],
      ['7600 Rounding Differences', '0.00', '0.01'],
    ]);
    // Its trade move, as its event tells the partners ledger: the receivable line; a credit note's mirrored.
    expect(tradeMove(lines).toFixed(2)).toBe('265.01');
    expect(tradeMove(invoiceEntryLines('creditout', figures, accountsFor('creditout', {}))).toFixed(2)).toBe('-265.01');
    expect(tradeMove(invoiceEntryLines('invoicein', figures, accountsFor('invoicein', {}))).toFixed(2)).toBe('-265.01');
    expect(tags(lines).slice(1, 4)).toEqual([
      ['Revenue', 'S', '20', '200.00'],
      ['Tax', 'S', '20', '200.00'],
      ['Revenue', 'Z', '0', '25.00'],
    ]);
    expect(isBalanced(lines)).toBe(true);
  });

  it('mirrors a credit note and uses the accounts the invoice names; a negative rounding amount is a debit', () => {
    const accounts = accountsFor('creditout', { tradeaccount: '1210', chartofaccounts: '4100', invoicejournal: 'Credits' });
    expect(accounts.journal).toBe('Credits');
    const lines = invoiceEntryLines('creditout', { ...figures, payable: '264.99', rounding_amount: '-0.01' }, accounts);
    expect(view(lines)).toEqual([
      ['1210', '0.00', '264.99'],
      ['4100', '200.00', '0.00'],
      ['2200 Tax Payable', '40.00', '0.00'],
      ['4100', '25.00', '0.00'],
      ['7600 Rounding Differences', '0.00', '0.01'],
    ]);
    expect(isBalanced(lines)).toBe(true);
  });

  it('self-assesses a reverse-charge vendor bill: input and output VAT of rate x base, net zero', () => {
    const bill: EntryFigures = {
      payable: '1000.00',
      breakdown: [{ tax_category: 'AE', tax_rate: '0', taxable_amount: '1000.00', tax_amount: '0.00' }],
      rounding_amount: '0',
      self_assessed: [{ rate: '19', base: '1000.00' }],
      places: 2,
    };
    const lines = invoiceEntryLines('invoicein', bill, accountsFor('invoicein', {}));
    expect(view(lines)).toEqual([
      ['2000 Accounts Payable', '0.00', '1000.00'],
      ['5000 Purchases', '1000.00', '0.00'],
      ['1400 Tax Receivable', '190.00', '0.00'],
      ['2200 Tax Payable', '0.00', '190.00'],
    ]);
    expect(tags(lines).slice(2)).toEqual([
      ['Reverse charge input VAT', 'AE', '19', '1000.00'],
      ['Reverse charge output VAT', 'AE', '19', '1000.00'],
    ]);
    const credit = invoiceEntryLines('creditin', bill, accountsFor('creditin', {}));
    expect(view(credit)[2]).toEqual(['1400 Tax Receivable', '0.00', '190.00']);
    expect(isBalanced(credit)).toBe(true);
    // What the organization sells under reverse charge its customer self-assesses.
    expect(invoiceEntryLines('invoiceout', bill, accountsFor('invoiceout', {}))).toHaveLength(2);
  });

  it('posts another currency converted line by line, the conversion difference to the rounding account', () => {
    const lines = invoiceEntryLines('invoiceout', figures, accountsFor('invoiceout', {}), { rate: '0.913', currency: 'EUR' });
    expect(view(lines)).toEqual([
      ['1200 Accounts Receivable', '241.95', '0.00'],
      ['4000 Sales Revenue', '0.00', '182.60'],
      ['2200 Tax Payable', '0.00', '36.52'],
      ['4000 Sales Revenue', '0.00', '22.83'],
      ['7600 Rounding Differences', '0.00', '0.01'],
      ['7600 Rounding Differences', '0.01', '0.00'],
    ]);
    expect(isBalanced(lines)).toBe(true);
    const yen = invoiceEntryLines('invoiceout', figures, accountsFor('invoiceout', {}), { rate: '161.37', currency: 'JPY' });
    expect(isBalanced(yen)).toBe(true);
  });

  it("posts each category's VAT as the document states it in the accounting currency (BT-111 = Σ tax lines): 12.35 and 7.65 USD at 0.9234", () => {
    const usd = {
      payable: '120.00',
      breakdown: [
        { tax_category: 'S', tax_rate: '20', taxable_amount: '61.75', tax_amount: '12.35' },
        { tax_category: 'S', tax_rate: '10', taxable_amount: '38.25', tax_amount: '7.65' },
      ],
      rounding_amount: '0.00',
      places: 2,
    };
    const conversion = { rate: '0.9234', currency: 'EUR' };
    const tax = invoiceEntryLines('invoiceout', usd, accountsFor('invoiceout', {}), conversion).filter((l) => l.label === 'Tax');
    const stated = vatInAccountingCurrency(usd.breakdown, conversion.rate, conversion.currency);
    expect(tax.map((l) => l.credit.toFixed(2))).toEqual(['11.40', '7.06']);
    expect(sum(tax.map((l) => l.credit)).toFixed(2)).toBe(stated.tax_total.toFixed(2));
    expect(stated.tax_total.toFixed(2)).toBe('18.46');
  });

  it('balances every document the tax calculation accepts, posting exactly its VAT (property)', () => {
    const line = fc.record({
      quantity: fc.integer({ min: 1, max: 50 }).map(String),
      price: fc.integer({ min: 0, max: 100_000 }).map((c) => (c / 100).toFixed(2)),
      discount: fc.constantFrom('0', '10', '33.3333'),
      tax_rate: fc.constantFrom('0', '5.5', '10', '19', '20'),
      tax_included: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('EUR', 'JPY', 'BHD'),
        fc.constantFrom('line', 'document'),
        fc.constantFrom<'invoiceout' | 'creditout' | 'invoicein' | 'creditin'>('invoiceout', 'creditout', 'invoicein', 'creditin'),
        fc.option(fc.constantFrom('0.9', '1.0837', '161.2'), { nil: undefined }),
        (lines: TaxLineInput[], currency, rounding, type, rate) => {
          const decision = decideDocumentTaxes({ currency, rounding, lines, parties: null });
          if (!decision.ok) throw new Error(JSON.stringify(decision.errors));
          const doc = decision.document;
          const entry = invoiceEntryLines(
            type,
            {
              payable: doc.totals.payable_amount,
              breakdown: doc.breakdown,
              rounding_amount: doc.totals.rounding_amount,
              places: doc.minor_unit,
            },
            accountsFor(type, {}),
            rate ? { rate, currency: 'EUR' } : null,
          );
          expect(isBalanced(entry)).toBe(true);
          if (!rate) {
            const tax = entry.filter((l) => l.label === 'Tax');
            expect(sum(tax.map((l) => l.debit.plus(l.credit))).toFixed()).toBe(sum(doc.breakdown.map((b) => b.tax_amount)).toFixed());
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('detects an unbalanced entry', () => {
    const lines = invoiceEntryLines('invoiceout', { ...figures, payable: '265.02' }, accountsFor('invoiceout', {}));
    expect(isBalanced(lines)).toBe(false);
  });
});
