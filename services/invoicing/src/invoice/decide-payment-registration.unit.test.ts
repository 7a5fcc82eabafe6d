import { decidePaymentRegistration, rateWindow, type PaymentRegistrationState, type RegisterPaymentRequest } from './decide-registration';
import type { InvoiceRow } from './invoice.record';
import { openInvoiceRow } from './invoice-row.fixtures';

/**
 * Registering a payment on one invoice, as the handler decides it from what its load read
 * (register-payment.handler.ts): an open customer invoice INV-0007 of 121.00 EUR dated 1 November,
 * 21.00 of it paid, at version 3, in an organization on UTC that books in EUR.
 */
const invoice = openInvoiceRow();

const now = new Date('2026-11-28T10:00:00.123Z');
const given: PaymentRegistrationState = {
  settings: { lock_date: null, time_zone: null, default_currency: 'EUR' },
  invoice,
  booked: null,
  rates: [],
  ids: { entryId: 900, paymentId: 55 },
  now,
};
const ctx = { orgId: 1, operationKey: 'key-1', userId: 'clerk', instant: now };
const pay = (amount: string, over: Partial<RegisterPaymentRequest> = {}): RegisterPaymentRequest =>
  ({ id: 7, amount, ...over }) as RegisterPaymentRequest;
const usd = (over: Partial<InvoiceRow> = {}) => ({ ...given, invoice: { ...invoice, currency: 'USD', ...over } });

describe('registering a payment on an invoice', () => {
  it('given an open invoice, when part of what is due is paid today, then a payment of one allocation is stored and the invoice stays open', () => {
    const plan = decidePaymentRegistration(given, pay('40.00'), ctx);
    expect(plan.payment).toMatchObject({
      partner_id: 40,
      direction: 'in',
      amount: '40.00',
      allocated: '40.00',
      payment_date: '2026-11-28',
    });
    expect(plan.payment).toMatchObject({ journal: 'Bank', exchange_rate: null, accounting_amount: '40', operation_key: 'key-1' });
    expect(plan.allocation).toEqual({ org_id: 1, invoice_id: 7, amount: '40.00', allocation_date: '2026-11-28', operation_key: 'key-1' });
    expect(plan.entry).toMatchObject({ invoice_id: 7, kind: 'payment', journaldate: '2026-11-28', reference: 'INV-0007' });
    expect(plan.invoice).toMatchObject({ amount_paid: '61.00', invoicestatus: 'open', paid_at: null, version: 4 });
    expect(plan.events.paid).toBeNull();
    expect(plan.events.registered).toMatchObject({ payment_id: 55, journal_entry_id: 900, amount: 40, amount_paid: 61, due_amount: 60 });
    expect(plan.events.registered).toMatchObject({ version: 4, trade_delta: -40 });
    expect(plan.reply).toEqual({
      message: 'Payment registered successfully',
      invoice: { id: 7, invoicenumber: 'INV-0007', invoicestatus: 'open', invoicetotal: 121, amount_paid: 61, due_amount: 60 },
      payment: { id: 55, amount: 40, payment_date: '2026-11-28', journal: 'Bank', journal_entry_id: 900 },
    });
  });

  it('given an open invoice, when all that is due is paid, then it is paid as of the transaction and both events go', () => {
    const plan = decidePaymentRegistration(given, pay('100.00'), ctx);
    expect(plan.invoice).toMatchObject({ amount_paid: '121.00', invoicestatus: 'paid', paid_at: now });
    expect(plan.events.paid).toMatchObject({ invoice_id: 7, version: 4, paid_at: expect.stringMatching(/^2026-11-28T10:00:00/) });
    expect(plan.reply.message).toBe('Payment registered; invoice INV-0007 is paid');
    expect(plan.reply.invoice).toMatchObject({ invoicestatus: 'paid', due_amount: 0 });
  });

  it('given a vendor bill, when paid, then the money goes out', () => {
    const bill = { ...given, invoice: { ...invoice, invoicetype: 'invoicein' } as InvoiceRow };
    expect(decidePaymentRegistration(bill, pay('1'), ctx).payment.direction).toBe('out');
  });

  it('given books locked up to 30 November, when a payment is dated then, then payment_date is refused before the invoice is looked for', () => {
    const locked = { ...given, settings: { ...given.settings!, lock_date: '2026-11-30' }, invoice: null };
    expect(() => decidePaymentRegistration(locked, pay('1', { payment_date: '2026-11-30' }), ctx)).toThrow(
      expect.objectContaining({
        refusal: 'invoice.lockDatePassed',
        code: 'validation_failed',
        errors: [expect.objectContaining({ field: 'payment_date' })],
      }),
    );
  });

  it('given no invoice of that id, when paid, then it is not found', () => {
    expect(() => decidePaymentRegistration({ ...given, invoice: null }, pay('1'), ctx)).toThrow(
      expect.objectContaining({ refusal: 'invoice.invoiceNotFound', code: 'not_found' }),
    );
  });

  it('given an organization in Tokyo, when paid without a date late on 28 November UTC, then the payment is dated its 29 November', () => {
    const tokyo = { ...given, settings: { ...given.settings!, time_zone: 'Asia/Tokyo' } };
    const late = { ...ctx, instant: new Date('2026-11-28T20:00:00Z') };
    expect(decidePaymentRegistration(tokyo, pay('1'), late).payment.payment_date).toBe('2026-11-29');
  });

  it('given an invoice in USD and the table rates of 26 and 28 November, when paid on the 27th, then it is posted at the 26th’s rate', () => {
    const state = {
      ...usd(),
      rates: [
        { date: '2026-11-28', rate: '0.95' },
        { date: '2026-11-26', rate: '0.90' },
      ],
    };
    const plan = decidePaymentRegistration(state, pay('10.00', { payment_date: '2026-11-27' }), ctx);
    expect(plan.payment).toMatchObject({ currency: 'USD', exchange_rate: '0.90', accounting_amount: '9' });
  });

  it('given an invoice in USD booked at 0.80 and no table rate, when paid, then it is posted at the invoice’s rate and realizes nothing', () => {
    const state = { ...usd({ exchange_rate: '0.8' }), booked: '96.80' };
    const plan = decidePaymentRegistration(state, pay('100.00'), ctx);
    expect(plan.payment).toMatchObject({ exchange_rate: '0.8', accounting_amount: '80' });
    expect(plan.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['Bank', '80.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '80.00'],
    ]);
  });

  it('given an invoice in USD posted as it is and no rate anywhere, when paid, then exchange_rate is refused', () => {
    expect(() => decidePaymentRegistration(usd(), pay('1'), ctx)).toThrow(
      expect.objectContaining({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'exchange_rate' })] }),
    );
  });

  it('given an invoice in EUR, the accounting currency, when paid at a rate other than 1, then exchange_rate is refused', () => {
    expect(() => decidePaymentRegistration(given, pay('1', { exchange_rate: '1.1' }), ctx)).toThrow(
      expect.objectContaining({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'exchange_rate' })] }),
    );
  });
});

describe('the dates a payment may take its rate on', () => {
  it('given a payment date, when the rates are read, then only that date counts', () => {
    expect(rateWindow('2026-11-27', now)).toEqual({ from: '2026-11-27', to: '2026-11-27' });
  });

  it('given no payment date, when the rates are read, then every zone’s today counts, from the last to the first', () => {
    expect(rateWindow(undefined, new Date('2026-11-28T12:30:00Z'))).toEqual({ from: '2026-11-28', to: '2026-11-29' });
    expect(rateWindow(undefined, new Date('2026-11-28T05:00:00Z'))).toEqual({ from: '2026-11-27', to: '2026-11-28' });
  });
});
