import type { InvoiceRow } from '../invoice/invoice.record';
import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import { decideNewPayment, type NewPaymentRequest, type NewPaymentState } from './decide-new-payment';

/**
 * A new payment, as the handler decides it from what its load read (create-payment.handler.ts): a
 * customer (partner 40) with two open invoices dated 1 November, INV-0007 of 121.00 EUR (21.00 of it
 * paid, version 3) and INV-0008 of 50.00 EUR, in an organization on UTC that books in EUR.
 */
const invoice = ({ next_version = 4, ...over }: Partial<InvoiceRow> & { next_version?: number }) => ({
  ...openInvoiceRow(over),
  next_version,
});

const seven = invoice({});
const eight = invoice({ id: 8, invoicenumber: 'INV-0008', invoicetotal: '50.00', amount_paid: '0.00', version: 1, next_version: 2 });
const now = new Date('2026-11-28T10:00:00.123Z');
const given: NewPaymentState = {
  settings: { lock_date: null, time_zone: null, default_currency: 'EUR' },
  documents: new Map([
    [7, seven],
    [8, eight],
  ]),
  booked: new Map(),
  rates: [],
  ids: { entryId: 900, paymentId: 55, allocationIds: [301, 302] },
  now,
};
const ctx = { orgId: 1, operationKey: 'key-1', userId: 'clerk', instant: now };
const receive = (amount: string, over: Partial<NewPaymentRequest> = {}): NewPaymentRequest =>
  ({ partner: 40, amount, currency: 'EUR', direction: 'in', ...over }) as NewPaymentRequest;
const refused = (state: NewPaymentState, req: NewPaymentRequest) => {
  try {
    decideNewPayment(state, req, ctx);
  } catch (err) {
    return err as { refusal: string; code: string; errors: Array<{ field: string; message: string }> };
  }
  throw new Error('expected the payment to be refused');
};

describe('a new payment', () => {
  it('given two open invoices, when a payment pays one in full and part of the other, then one entry posts both and the rest is the partner’s credit', () => {
    const plan = decideNewPayment(
      given,
      receive('150.00', {
        allocations: [
          { invoice_id: 7, amount: '100.00' },
          { invoice_id: 8, amount: '20.00' },
        ],
      }),
      ctx,
    );
    expect(plan.payment).toMatchObject({
      partner_id: 40,
      direction: 'in',
      amount: '150.00',
      allocated: '120.00',
      payment_date: '2026-11-28',
    });
    expect(plan.payment).toMatchObject({ journal: 'Bank', exchange_rate: null, accounting_amount: '150', operation_key: 'key-1' });
    expect(plan.allocations).toEqual([
      { id: 301, org_id: 1, invoice_id: 7, amount: '100.00', allocation_date: '2026-11-28', operation_key: 'key-1' },
      { id: 302, org_id: 1, invoice_id: 8, amount: '20.00', allocation_date: '2026-11-28', operation_key: 'key-1' },
    ]);
    // Naming two documents, the entry names none of them.
    expect(plan.entry).toMatchObject({ invoice_id: null, kind: 'payment', journaldate: '2026-11-28', reference: 'Payment' });
    // The documents' parts and the credit sit on one trade account: one line of it.
    expect(plan.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['Bank', '150.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '150.00'],
    ]);
    expect(plan.documents).toEqual([
      expect.objectContaining({ id: 7, amount_paid: '121.00', invoicestatus: 'paid', paid_at: now, updated_at: now, version: 4 }),
      expect.objectContaining({ id: 8, amount_paid: '20.00', invoicestatus: 'open', paid_at: null, updated_at: now, version: 2 }),
    ]);
    expect(plan.event).toMatchObject({ payment_id: 55, journal_entry_id: 900, side: 'customer', amount: 150, trade_delta: -150 });
    expect(plan.event.allocations).toEqual([
      { allocation_id: 301, invoice_id: 7, invoicenumber: 'INV-0007', invoicetype: 'invoiceout', amount: 100, invoice_version: 4 },
      { allocation_id: 302, invoice_id: 8, invoicenumber: 'INV-0008', invoicetype: 'invoiceout', amount: 20, invoice_version: 2 },
    ]);
    expect(plan.reply.message).toBe('Payment recorded and allocated to 2 document(s)');
    expect(plan.reply.payment).toMatchObject({
      id: 55,
      allocated: 120,
      unallocated: 30,
      refunded: 0,
      status: 'posted',
      journal_entry_id: 900,
    });
    expect(plan.reply.payment.allocations.map((a) => [a.id, a.invoicenumber, a.amount, a.journal_entry_id])).toEqual([
      [301, 'INV-0007', 100, 900],
      [302, 'INV-0008', 20, 900],
    ]);
    expect(plan.reply.invoices).toEqual([
      {
        id: 7,
        invoicenumber: 'INV-0007',
        invoicetype: 'invoiceout',
        invoicestatus: 'paid',
        invoicetotal: 121,
        amount_paid: 121,
        due_amount: 0,
      },
      {
        id: 8,
        invoicenumber: 'INV-0008',
        invoicetype: 'invoiceout',
        invoicestatus: 'open',
        invoicetotal: 50,
        amount_paid: 20,
        due_amount: 30,
      },
    ]);
  });

  it('given nothing to allocate, when money comes in, then all of it is credit and no document is touched', () => {
    const plan = decideNewPayment(given, receive('80.00', { reference: 'Deposit' }), ctx);
    expect(plan.allocations).toEqual([]);
    expect(plan.documents).toEqual([]);
    expect(plan.entry).toMatchObject({ invoice_id: null, reference: 'Deposit' });
    expect(plan.reply.message).toBe('Payment recorded; unallocated, it is the partner’s credit');
    expect(plan.reply.payment).toMatchObject({ allocated: 0, unallocated: 80, reference: 'Deposit' });
  });

  it('given one invoice named, when it is paid, then the entry names it among its pay journals', () => {
    const plan = decideNewPayment(given, receive('10.00', { allocations: [{ invoice_id: 8, amount: '10.00' }] }), ctx);
    expect(plan.entry.invoice_id).toBe(8);
    expect(plan.payment).not.toHaveProperty('invoice_id');
  });

  it('given a document already changed by this transaction, when it is paid, then its version stays as the trigger counts it', () => {
    const touched = { ...given, documents: new Map([[8, { ...eight, version: 2, next_version: 2 }]]) };
    const plan = decideNewPayment(touched, receive('10.00', { allocations: [{ invoice_id: 8, amount: '10.00' }] }), ctx);
    expect(plan.documents[0]?.version).toBe(2);
  });

  it('given books locked up to 30 November, when a payment is dated then, then payment_date is refused before anything else', () => {
    const locked = { ...given, settings: { ...given.settings!, lock_date: '2026-11-30' } };
    const err = refused(locked, receive('1.001', { payment_date: '2026-11-30', allocations: [{ invoice_id: 99, amount: '1' }] }));
    expect(err).toMatchObject({ refusal: 'invoice.lockDatePassed', code: 'validation_failed' });
    expect(err.errors.map((e) => e.field)).toEqual(['payment_date']);
  });

  it('given an amount finer than a cent, an unknown invoice and a date before the invoices, when paid, then every one is refused together', () => {
    const err = refused(
      given,
      receive('10.005', {
        payment_date: '2026-10-31',
        allocations: [
          { invoice_id: 99, amount: '1.00' },
          { invoice_id: 7, amount: '1.00' },
        ],
      }),
    );
    expect(err.refusal).toBe('payment.cashDecisionRefused');
    expect(err.errors.map((e) => e.field)).toEqual(['amount', 'allocations.0.invoice_id', 'payment_date']);
  });

  it('given another partner’s invoice, when a payment names it, then that allocation is refused', () => {
    const err = refused(given, receive('10.00', { partner: 41, allocations: [{ invoice_id: 7, amount: '10.00' }] }));
    expect(err.errors).toEqual([
      expect.objectContaining({ field: 'allocations.0.invoice_id', message: expect.stringContaining('partner 40') }),
    ]);
  });

  it('given an invoice, when a payment allocates more than it brings, then amount is refused', () => {
    const err = refused(given, receive('10.00', { allocations: [{ invoice_id: 7, amount: '20.00' }] }));
    expect(err.code).toBe('validation_failed');
    expect(err.errors.map((e) => e.field)).toContain('amount');
  });

  it('given an organization in Tokyo, when paid without a date late on 28 November UTC, then the payment is dated its 29 November', () => {
    const tokyo = { ...given, settings: { ...given.settings!, time_zone: 'Asia/Tokyo' } };
    const plan = decideNewPayment(tokyo, receive('1.00'), { ...ctx, instant: new Date('2026-11-28T20:00:00Z') });
    expect(plan.payment.payment_date).toBe('2026-11-29');
  });

  it('given a USD invoice booked at 0.80 and table rates of 26 and 28 November, when paid on the 27th, then the bank takes the 26th’s rate and the difference is realized', () => {
    const usd = invoice({
      id: 9,
      invoicenumber: 'INV-0009',
      invoicetotal: '100.00',
      amount_paid: '0.00',
      currency: 'USD',
      exchange_rate: '0.8',
    });
    const state: NewPaymentState = {
      ...given,
      documents: new Map([[9, usd]]),
      booked: new Map([[9, '80.00']]),
      rates: [
        { date: '2026-11-28', rate: '0.95' },
        { date: '2026-11-26', rate: '0.90' },
      ],
    };
    const plan = decideNewPayment(
      state,
      receive('100.00', { currency: 'USD', payment_date: '2026-11-27', allocations: [{ invoice_id: 9, amount: '100.00' }] }),
      ctx,
    );
    expect(plan.payment).toMatchObject({ currency: 'USD', exchange_rate: '0.90', accounting_amount: '90' });
    // The invoice is cleared at its own 80.00; the bank's 90.00 leaves 10.00 of gain.
    const receivable = plan.lines.filter((l) => l.account === '1200 Accounts Receivable').map((l) => l.credit.toFixed(2));
    expect(receivable).toEqual(['80.00']);
    expect(plan.lines.find((l) => l.account === 'Bank')?.debit.toFixed(2)).toBe('90.00');
    expect(plan.event.trade_delta).toBe(-80);
  });

  it('given a USD payment, no table rate and documents of no common rate, when recorded, then exchange_rate is refused', () => {
    const err = refused(given, receive('10.00', { currency: 'USD' }));
    expect(err.errors.map((e) => e.field)).toEqual(['exchange_rate']);
  });

  it('given a vendor bill, when money goes out for it, then the ledger side is the vendor’s and the bill is paid', () => {
    const bill = invoice({ id: 12, invoicenumber: 'BILL-1', invoicetype: 'invoicein', invoicetotal: '30.00', amount_paid: '0.00' });
    const plan = decideNewPayment(
      { ...given, documents: new Map([[12, bill]]) },
      receive('30.00', { direction: 'out', allocations: [{ invoice_id: 12, amount: '30.00' }] }),
      ctx,
    );
    expect(plan.event.side).toBe('vendor');
    expect(plan.documents[0]).toMatchObject({ invoicestatus: 'paid', amount_paid: '30.00' });
  });
});
