import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import { decideVoid, type VoidState } from './decide-void';
import type { AllocationRow } from './payment.record';
import { postedPaymentRow } from './payment-row.fixtures';

/** PAY-30: 100.00 EUR received on 5 November, 60.00 of it allocated to INV-0007 and 40.00 to INV-0008. */
const payment = postedPaymentRow();

const allocation = (id: number, invoice_id: number, invoicenumber: string, amount: string): AllocationRow & { invoicenumber: string } => ({
  id,
  org_id: 1,
  payment_id: 30,
  credit_note_id: null,
  invoice_id,
  invoicenumber,
  amount,
  allocation_date: '2026-11-05',
  status: 'active',
  journal_entry_id: null,
});

const now = new Date('2026-11-28T10:00:00Z');
/** INV-0007 (121.00, 60.00 paid by PAY-30) and INV-0008 (40.00, paid in full by it). */
const state: VoidState = {
  settings: { lock_date: '2026-10-31', time_zone: null, default_currency: 'EUR' },
  payment,
  allocations: [allocation(31, 7, 'INV-0007', '60.00'), allocation(32, 8, 'INV-0008', '40.00')],
  refunds: [],
  documents: new Map([
    [7, { ...openInvoiceRow({ amount_paid: '60.00' }), next_version: 4 }],
    [
      8,
      {
        ...openInvoiceRow({ id: 8, invoicenumber: 'INV-0008', invoicetotal: '40.00', amount_paid: '40.00', invoicestatus: 'paid' }),
        next_version: 4,
      },
    ],
  ]),
  booked: new Map(),
  entryId: 500,
  now,
};
const ctx = { orgId: 1, instant: now };

describe('deciding a void of a payment', () => {
  it('given a payment allocated across two invoices, when voided, then both owe again and a reversal entry mirrors it', () => {
    const plan = decideVoid(state, { payment_id: 30, reason: 'bounced' }, ctx);
    expect(plan.documents.map((d) => [d.invoicenumber, d.amount_paid, d.invoicestatus, d.version])).toEqual([
      ['INV-0007', '0.00', 'open', 4],
      ['INV-0008', '0.00', 'open', 4],
    ]);
    expect(plan.voided).toEqual([31, 32]);
    expect(plan.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['Bank', '0.00', '100.00'],
      ['1200 Accounts Receivable', '100.00', '0.00'],
    ]);
    expect(plan.entry).toEqual({
      org_id: 1,
      invoice_id: null,
      payment_id: 30,
      kind: 'void',
      journalname: 'Bank',
      journaldate: '2026-11-28',
      reference: 'Void PAY-30',
    });
    expect(plan.event).toMatchObject({
      payment_id: 30,
      side: 'customer',
      void_date: '2026-11-28',
      journal_entry_id: 500,
      trade_delta: 100,
    });
    expect(plan.event.allocations.map((a) => [a.allocation_id, a.invoice_id, a.amount, a.invoice_version])).toEqual([
      [31, 7, 60, 4],
      [32, 8, 40, 4],
    ]);
    expect(plan.reply.payment).toMatchObject({
      status: 'voided',
      allocated: 0,
      unallocated: 0,
      void_reason: 'bounced',
      void_journal_entry_id: 500,
    });
    expect(plan.reply.payment.allocations.map((a) => a.status)).toEqual(['voided', 'voided']);
    expect(plan.reply.invoices.map((i) => [i.id, i.due_amount])).toEqual([
      [7, 121],
      [8, 40],
    ]);
  });

  it('given a payment with unallocated credit left, when voided, then the credit is reversed off the receivable too', () => {
    const partly = { ...state, payment: { ...payment, allocated: '60.00' }, allocations: [state.allocations[0]!] };
    const plan = decideVoid({ ...partly, documents: new Map([[7, state.documents.get(7)!]]) }, { payment_id: 30 }, ctx);
    expect(plan.entry.invoice_id).toBe(7);
    expect(plan.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['Bank', '0.00', '100.00'],
      ['1200 Accounts Receivable', '100.00', '0.00'],
    ]);
    expect(plan.event.trade_delta).toBe(100);
  });

  it.each([
    ['dated on the lock date', {}, { void_date: '2026-10-31' }, 'validation_failed'],
    ['of a payment the organization does not have', { payment: null }, {}, 'not_found'],
    ['of a payment voided already', { payment: { ...payment, status: 'voided' as const } }, {}, 'invalid_state'],
    ['of a payment partly refunded', { payment: { ...payment, refunded: '10.00' } }, {}, 'invalid_state'],
    ['dated before the payment', {}, { void_date: '2026-11-04' }, 'validation_failed'],
  ])('given a void %s, when decided, then it is refused', (_, given, asked, code) => {
    expect(() => decideVoid({ ...state, ...given }, { payment_id: 30, ...asked }, ctx)).toThrow(expect.objectContaining({ code }));
  });

  it('given a payment one of whose invoices was written off since, when voided, then it is refused naming the invoice', () => {
    const documents = new Map(state.documents);
    documents.set(8, { ...documents.get(8)!, invoicestatus: 'written_off' });
    expect(() => decideVoid({ ...state, documents }, { payment_id: 30 }, ctx)).toThrow(
      expect.objectContaining({ code: 'invalid_state', message: 'Payment 30 settles INV-0008, written off since; it cannot be voided' }),
    );
  });
});
