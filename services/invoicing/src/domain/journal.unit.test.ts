import { accountsFor, invoiceEntryLines, isBalanced, paymentEntryLines, type JournalLine } from './journal';

const view = (lines: JournalLine[]) => lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)]);
const amounts = { subtotal: '225.00', tax_amount: '33.75', total: '258.75' };

describe('journal entries', () => {
  it('posts a sales invoice as receivable against revenue and tax', () => {
    const lines = invoiceEntryLines('invoiceout', amounts, accountsFor('invoiceout', {}));
    expect(view(lines)).toEqual([
      ['1200 Accounts Receivable', '258.75', '0.00'],
      ['4000 Sales Revenue', '0.00', '225.00'],
      ['2200 Tax Payable', '0.00', '33.75'],
    ]);
    expect(isBalanced(lines)).toBe(true);
  });

  it('mirrors a credit note and uses the accounts the invoice names', () => {
    const accounts = accountsFor('creditout', { tradeaccount: '1210', chartofaccounts: '4100', invoicejournal: 'Credits' });
    expect(accounts.journal).toBe('Credits');
    expect(view(invoiceEntryLines('creditout', amounts, accounts))).toEqual([
      ['1210', '0.00', '258.75'],
      ['4100', '225.00', '0.00'],
      ['2200 Tax Payable', '33.75', '0.00'],
    ]);
  });

  it('posts a vendor bill as expense and tax against payable, leaving out zero tax', () => {
    const lines = invoiceEntryLines('invoicein', { subtotal: '100', tax_amount: '0', total: '100' }, accountsFor('invoicein', {}));
    expect(view(lines)).toEqual([
      ['5000 Purchases', '100.00', '0.00'],
      ['2000 Accounts Payable', '0.00', '100.00'],
    ]);
    const refund = invoiceEntryLines('creditin', amounts, accountsFor('creditin', {}));
    expect(isBalanced(refund)).toBe(true);
    expect(view(refund)[2]).toEqual(['2000 Accounts Payable', '258.75', '0.00']);
  });

  it('settles payments against the bank in the direction money moves', () => {
    expect(view(paymentEntryLines('invoiceout', '40.05', '1200', 'Bank'))).toEqual([
      ['Bank', '40.05', '0.00'],
      ['1200', '0.00', '40.05'],
    ]);
    expect(view(paymentEntryLines('invoicein', '10', '2000', 'Bank'))).toEqual([
      ['2000', '10.00', '0.00'],
      ['Bank', '0.00', '10.00'],
    ]);
  });

  it('detects an unbalanced entry', () => {
    const lines = invoiceEntryLines('invoiceout', { subtotal: '10', tax_amount: '1', total: '12' }, accountsFor('invoiceout', {}));
    expect(isBalanced(lines)).toBe(false);
  });
});
