import { decideRegistration, registrationLines, type RegistrationState } from './decide-registration';

/** An open customer invoice of 121.00 dated 1 November, 21.00 of it paid, posted as it is. */
const open: RegistrationState = {
  invoice: {
    id: 7,
    invoicenumber: 'INV-0007',
    invoicetype: 'invoiceout',
    invoicestatus: 'open',
    invoicedue: '2026-12-01',
    invoicetotal: '121.00',
    amount_paid: '21.00',
    written_off_amount: '0.00',
    currency: 'EUR',
    invoicedatetime: new Date('2026-11-01T09:00:00Z'),
    tradeaccount: null,
    chartofaccounts: null,
    invoicejournal: null,
  },
  today: '2026-11-28',
};
const on = (amount: string, over: { date?: string; journal?: string } = {}) => ({ amount, date: '2026-11-28', ...over });

describe('deciding a payment registration', () => {
  it('given an open invoice, when part of what is due is paid, then it stays open and the money comes in through the bank', () => {
    expect(decideRegistration(open, on('40.00'))).toEqual({ journal: 'Bank', direction: 'in', paidInFull: false });
  });

  it('given an open invoice, when all that is due is paid, then it is paid in full', () => {
    expect(decideRegistration(open, on('100', { journal: '  Cash  ' }))).toEqual({ journal: 'Cash', direction: 'in', paidInFull: true });
  });

  it('given a vendor bill, when paid, then the money goes out', () => {
    expect(decideRegistration({ ...open, invoice: { ...open.invoice, invoicetype: 'invoicein' } }, on('1')).direction).toBe('out');
  });

  it('given an overdue invoice, when paid, then it is taken', () => {
    expect(decideRegistration({ ...open, today: '2026-12-15' }, on('1')).paidInFull).toBe(false);
  });

  it.each(['draft', 'paid', 'cancelled', 'written_off'] as const)(
    'given an invoice %s, when paid, then it is refused as an invalid state',
    (status) => {
      expect(() => decideRegistration({ ...open, invoice: { ...open.invoice, invoicestatus: status } }, on('1'))).toThrow(
        expect.objectContaining({
          refusal: 'invoice.paymentOnUnpayableInvoice',
          code: 'invalid_state',
          message: expect.stringContaining(`invoice INV-0007 is ${status}`),
        }),
      );
    },
  );

  it('given a EUR invoice, when paid in tenths of a cent, then amount is refused', () => {
    expect(() => decideRegistration(open, on('1.234'))).toThrow(
      expect.objectContaining({
        refusal: 'payment.amountFinerThanCurrency',
        code: 'validation_failed',
        errors: [expect.objectContaining({ field: 'amount' })],
      }),
    );
  });

  it('given an invoice of 1 November, when paid on 31 October, then payment_date is refused', () => {
    expect(() => decideRegistration(open, on('1', { date: '2026-10-31' }))).toThrow(
      expect.objectContaining({
        refusal: 'payment.datedBeforeEarlier',
        code: 'validation_failed',
        errors: [expect.objectContaining({ field: 'payment_date' })],
      }),
    );
  });

  it('given 100.00 due, when 100.01 is paid, then amount is refused as an overpayment', () => {
    expect(() => decideRegistration(open, on('100.01'))).toThrow(
      expect.objectContaining({
        refusal: 'invoice.overpayment',
        code: 'validation_failed',
        errors: [{ field: 'amount', message: expect.stringContaining('Overpayment: amount 100.01 exceeds the amount due 100.00') }],
      }),
    );
  });

  it('given 100.00 due of which 60.00 is written off, when 50.00 is paid, then amount is refused as an overpayment of the 40.00 left', () => {
    const writtenDown = { ...open, invoice: { ...open.invoice, written_off_amount: '60.00' } };
    expect(() => decideRegistration(writtenDown, on('50.00'))).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        errors: [{ field: 'amount', message: expect.stringContaining('exceeds the amount due 40.00') }],
      }),
    );
    expect(decideRegistration(writtenDown, on('40.00')).paidInFull).toBe(true);
  });

  it('given a paid invoice paid too much too early, when paid, then its state is refused first', () => {
    const paid = { ...open, invoice: { ...open.invoice, invoicestatus: 'paid' as const } };
    expect(() => decideRegistration(paid, on('999.999', { date: '2026-10-31' }))).toThrow(
      expect.objectContaining({ code: 'invalid_state' }),
    );
  });
});

describe("a registered payment's entry", () => {
  const lines = (state: RegistrationState, amount: string, accounting: string, booked = new Map()) =>
    registrationLines(state, decideRegistration(state, on(amount)), amount, { accounting_amount: accounting }, booked).map((l) => [
      l.account,
      l.debit.toFixed(2),
      l.credit.toFixed(2),
    ]);

  it('given an invoice posted as it is, when paid, then the bank is debited and the receivable credited by the amount', () => {
    expect(lines(open, '40.00', '40.00')).toEqual([
      ['Bank', '40.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '40.00'],
    ]);
  });

  it('given an invoice booked at a rate, when paid at another, then the difference is realized', () => {
    // 121.00 booked as 242.00: the 100.00 left is worth 200.00 on the books; the money is worth 190.00.
    const booked = new Map([[7, { amount: '121.00', booked: '242.00', places: 2 }]]);
    expect(lines(open, '100.00', '190.00', booked)).toEqual([
      ['Bank', '190.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '200.00'],
      ['6700 Exchange Losses', '10.00', '0.00'],
    ]);
  });
});
