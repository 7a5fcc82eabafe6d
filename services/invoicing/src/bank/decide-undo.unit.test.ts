import { isRefusal } from '@bo/runtime';
import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import type { VoidState } from '../payment/decide-void';
import { postedPaymentRow } from '../payment/payment-row.fixtures';
import { bankLine } from './bank-line.fixtures';
import { decideUndo, type UnreconcileLoad } from './decide-undo';

/**
 * A line opened again (unreconcile-line.handler.ts): line 21 of statement 3, 100.00 EUR received on
 * 5 November 2026, in an organization on UTC that books in EUR with its books locked to 31 October.
 * Its reconciliation 8 made PAY-30 (100.00, 60.00 of it allocated to INV-0007) and posted a bank fee
 * (entry 310); the load read it all on 28 November, the void's entry 500 and the reversal's 501 drawn.
 */
const line = bankLine({ booking_date: '2026-11-05', status: 'reconciled' });
const now = new Date('2026-11-28T10:00:00Z');
const ctx = { orgId: 1, instant: now };
const voidState: VoidState = {
  settings: { lock_date: '2026-10-31', time_zone: null, default_currency: 'EUR' },
  payment: postedPaymentRow({ allocated: '60.00' }),
  allocations: [
    {
      id: 31,
      org_id: 1,
      payment_id: 30,
      credit_note_id: null,
      invoice_id: 7,
      invoicenumber: 'INV-0007',
      amount: '60.00',
      allocation_date: '2026-11-05',
      status: 'active',
      journal_entry_id: null,
    },
  ],
  refunds: [],
  documents: new Map([[7, { ...openInvoiceRow({ amount_paid: '60.00' }), next_version: 4 }]]),
  booked: new Map(),
  entryId: 500,
  now,
};
/** Nothing to void: what the void's load reads of no payment. */
const noPayment: VoidState = { ...voidState, payment: null, allocations: [], documents: new Map(), entryId: 0 };
const load: UnreconcileLoad = {
  line: { line, reconciliation: { id: 8, payment_id: 30, made_payment: true, journal_entry_id: 310 } },
  void: voidState,
  posted: [
    { account: '6800 Bank Charges', debit: '1.50', credit: '0.00', label: 'Bank fee' },
    { account: 'Bank', debit: '0.00', credit: '1.50', label: 'Bank fee' },
  ],
  bills: [],
  entryId: 501,
};

const refusalOf = (decide: () => unknown) => {
  try {
    decide();
  } catch (err) {
    return err;
  }
  throw new Error('not refused');
};

describe('deciding to undo a bank line’s reconciliation', () => {
  it('given a reconciliation that made a payment and posted a fee, when undone, then the payment is voided today and the fee reversed on the line’s day', () => {
    const plan = decideUndo(load, 21, ctx);
    if (plan.kind !== 'undo') throw new Error('not an undo');
    expect(plan.void).toMatchObject({
      entryId: 500,
      voidDate: '2026-11-28',
      voided: [31],
      payment: { id: 30, status: 'voided', void_reason: 'Bank line 21 unreconciled', voided_at: now },
    });
    expect(plan.void!.documents.map((d) => [d.id, d.amount_paid, d.invoicestatus, d.version])).toEqual([[7, '0.00', 'open', 4]]);
    expect(plan.void!.event).toMatchObject({ payment_id: 30, journal_entry_id: 500, void_date: '2026-11-28' });
    expect(plan.reversal).toEqual({
      id: 501,
      header: {
        org_id: 1,
        invoice_id: null,
        payment_id: null,
        kind: 'bank',
        journalname: 'Bank',
        journaldate: '2026-11-05',
        reference: 'Undo bank line 21',
      },
      lines: [
        expect.objectContaining({ account: '6800 Bank Charges', label: 'Undo: Bank fee' }),
        expect.objectContaining({ account: 'Bank', label: 'Undo: Bank fee' }),
      ],
    });
    expect(plan.reversal!.lines.map((l) => [l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['0.00', '1.50'],
      ['1.50', '0.00'],
    ]);
    expect(plan.reconciliation).toEqual({ id: 8, payment_id: 30, made_payment: true, journal_entry_id: 310, undone_at: now });
    expect(plan.line).toEqual({ ...line, status: 'unmatched' });
    expect(plan.bills).toEqual([]);
    expect(plan.reply).toEqual({
      message: 'Bank line 21 is open again',
      line: expect.objectContaining({ id: 21, status: 'unmatched', payment_id: null, journal_entry_id: null }),
    });
  });

  it('given a reconciliation to an account, when undone, then its posting is reversed and nothing is voided', () => {
    const plan = decideUndo(
      {
        ...load,
        line: { line, reconciliation: { id: 8, payment_id: null, made_payment: false, journal_entry_id: 310 } },
        void: noPayment,
        posted: [
          { account: 'Bank', debit: '100.00', credit: '0.00', label: 'Bank line' },
          { account: '8000 Interest', debit: '0.00', credit: '100.00', label: 'Bank line' },
        ],
      },
      21,
      ctx,
    );
    if (plan.kind !== 'undo') throw new Error('not an undo');
    expect(plan.void).toBeUndefined();
    expect(plan.reversal!.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2), l.label])).toEqual([
      ['Bank', '0.00', '100.00', 'Undo: Bank line'],
      ['8000 Interest', '100.00', '0.00', 'Undo: Bank line'],
    ]);
  });

  it('given a payment linked, not made, when undone, then the payment stays and nothing is posted', () => {
    const plan = decideUndo(
      { ...load, line: { line, reconciliation: { id: 8, payment_id: 30, made_payment: false, journal_entry_id: null } }, posted: [] },
      21,
      ctx,
    );
    expect(plan).toMatchObject({ kind: 'undo', line: { status: 'unmatched' } });
    expect(plan).not.toHaveProperty('void');
    expect(plan).not.toHaveProperty('reversal');
  });

  it('given a debit line that paid bills of a payment file, when undone, then those bills are in payment again', () => {
    const plan = decideUndo({ ...load, bills: [41, 42] }, 21, ctx);
    expect(plan).toMatchObject({ kind: 'undo', bills: [41, 42] });
  });

  it('given an ignored line, when unreconciled, then it is only opened again', () => {
    const plan = decideUndo({ ...load, line: { line: { ...line, status: 'ignored' }, reconciliation: null }, void: noPayment }, 21, ctx);
    expect(plan).toMatchObject({ kind: 'reopen', line: { status: 'unmatched' } });
    expect(plan).not.toHaveProperty('void');
  });

  it('given no line, an open one, or a payment the void refuses, when unreconciled, then it is refused as before, in that order', () => {
    expect(
      isRefusal(
        refusalOf(() => decideUndo({ ...load, line: undefined }, 21, ctx)),
        'bank.bankLineNotFound',
      ),
    ).toBe(true);
    expect(
      isRefusal(
        refusalOf(() => decideUndo({ ...load, line: { line: { ...line, status: 'unmatched' }, reconciliation: null } }, 21, ctx)),
        'bank.lineNotReconciled',
      ),
    ).toBe(true);
    const voided = { ...voidState, payment: postedPaymentRow({ status: 'voided' }) };
    expect(
      isRefusal(
        refusalOf(() => decideUndo({ ...load, void: voided }, 21, ctx)),
        'payment.paymentAlreadyVoided',
      ),
    ).toBe(true);
    const refunded = { ...voidState, payment: postedPaymentRow({ refunded: '5.00' }) };
    expect(
      isRefusal(
        refusalOf(() => decideUndo({ ...load, void: refunded }, 21, ctx)),
        'payment.refundedPaymentVoided',
      ),
    ).toBe(true);
    const lockedToday = { ...voidState, settings: { ...voidState.settings!, lock_date: '2026-11-30' } };
    expect(
      isRefusal(
        refusalOf(() => decideUndo({ ...load, void: lockedToday }, 21, ctx)),
        'invoice.lockDatePassed',
      ),
    ).toBe(true);
    expect(
      isRefusal(
        refusalOf(() => decideUndo({ ...load, void: noPayment }, 21, ctx)),
        'payment.paymentNotFound',
      ),
    ).toBe(true);
  });
});
