import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import { decideRefund, type RefundState } from './decide-refund';
import { postedPaymentRow } from './payment-row.fixtures';

/** PAY-30: 100.00 EUR received on 5 November, 60.00 of it allocated: 40.00 of credit left. */
const payment = postedPaymentRow({ allocated: '60.00' });

const now = new Date('2026-11-28T10:00:00Z');
const state: RefundState = {
  settings: { lock_date: '2026-10-31', time_zone: null, default_currency: 'EUR' },
  payment: { row: payment, allocations: [], refunds: [] },
  note: null,
  booked: null,
  rates: [],
  ids: { refundId: 70, entryId: 700 },
  now,
};
const ctx = { orgId: 1, instant: now, operationKey: 'k-1', userId: 'u1' };

/** CN-0009: a validated credit note of 30.00 to the customer, nothing of it used yet. */
const note = {
  ...openInvoiceRow({ id: 9, invoicenumber: 'CN-0009', invoicetype: 'creditout', invoicetotal: '30.00', amount_paid: '0.00' }),
  next_version: 4,
};

describe('deciding a refund of a partner credit', () => {
  it("given a payment with credit left, when part of it is refunded, then the money goes back out and the payment's refunded total moves", () => {
    const plan = decideRefund(state, { payment_id: 30, amount: '25.00' }, ctx);
    expect(plan.refund).toMatchObject({
      id: 70,
      payment_id: 30,
      direction: 'out',
      amount: '25.00',
      accounting_amount: '25',
      journal_entry_id: 700,
    });
    expect(plan.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['1200 Accounts Receivable', '25.00', '0.00'],
      ['Bank', '0.00', '25.00'],
    ]);
    expect(plan.payment).toMatchObject({ id: 30, refunded: '25.00' });
    expect(plan.event).toMatchObject({ refund_id: 70, side: 'customer', trade_delta: 25, refund_date: '2026-11-28' });
    expect(plan.reply.payment).toMatchObject({ refunded: 25, unallocated: 15, refunds: [{ id: 70, amount: 25 }] });
  });

  it('given a validated credit note, when refunded in full, then it is settled as paid, its version one more', () => {
    const plan = decideRefund({ ...state, payment: null, note }, { credit_note_id: 9, amount: '30.00' }, ctx);
    expect(plan.note).toMatchObject({ id: 9, amount_paid: '30.00', invoicestatus: 'paid', paid_at: now, version: 4 });
    expect(plan.refund).toMatchObject({ credit_note_id: 9, payment_id: null, direction: 'out' });
    expect(plan.reply.credit_note).toMatchObject({ id: 9, invoicestatus: 'paid', due_amount: 0 });
  });

  it.each([
    ['naming no source', {}, 'validation_failed'],
    ['naming both sources', { payment_id: 30, credit_note_id: 9 }, 'validation_failed'],
    ['dated on the lock date', { payment_id: 30, refund_date: '2026-10-31' }, 'validation_failed'],
    ['of more than the credit left', { payment_id: 30, amount: '40.01' }, 'validation_failed'],
    ['finer than its currency', { payment_id: 30, amount: '1.001' }, 'validation_failed'],
    ['dated before the payment', { payment_id: 30, refund_date: '2026-11-04' }, 'validation_failed'],
    ['of a payment the organization does not have', { payment_id: 31 }, 'not_found', { payment: null }],
    [
      'of a voided payment',
      { payment_id: 30 },
      'invalid_state',
      { payment: { ...state.payment!, row: { ...payment, status: 'voided' as const } } },
    ],
    ['of a credit note the organization does not have', { credit_note_id: 9 }, 'not_found', { payment: null }],
  ])('given a refund %s, when decided, then it is refused', (_, asked, code, given: Partial<RefundState> = {}) => {
    expect(() => decideRefund({ ...state, ...given }, { amount: '10.00', ...asked }, ctx)).toThrow(expect.objectContaining({ code }));
  });
});
