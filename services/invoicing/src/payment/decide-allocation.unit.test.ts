import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import type { InvoiceRow } from '../invoice/invoice.record';
import { decideAllocation, type AllocationRequest, type AllocationState } from './decide-allocation';
import { postedPaymentRow } from './payment-row.fixtures';
import { planAllocations } from './plan-allocations';

/** PAY-30: 100.00 EUR received on 5 November from partner 40, 20.00 of it allocated already: 80.00 of credit left. */
const payment = postedPaymentRow({ allocated: '20.00' });
const earlier = {
  id: 60,
  org_id: 1,
  payment_id: 30,
  credit_note_id: null,
  invoice_id: 5,
  amount: '20.00',
  allocation_date: '2026-11-05',
  status: 'active' as const,
  journal_entry_id: 600,
  invoicenumber: 'INV-0005',
};

/** INV-0007: 121.00 due 1 December, 21.00 paid (100.00 due); INV-0008: 50.00, nothing paid. */
const doc = (over: Partial<InvoiceRow> & { next_version?: number } = {}) => ({
  ...openInvoiceRow(over),
  next_version: over.next_version ?? 4,
});
const inv7 = doc();
const inv8 = doc({ id: 8, invoicenumber: 'INV-0008', invoicetotal: '50.00', amount_paid: '0.00', version: 1, next_version: 2 });

/** CN-0009: a validated credit note of 30.00 to partner 40, nothing of it used yet. */
const note = doc({
  id: 9,
  invoicenumber: 'CN-0009',
  invoicetype: 'creditout',
  invoicetotal: '30.00',
  amount_paid: '0.00',
  next_version: 6,
});

const now = new Date('2026-11-28T10:00:00Z');
const documents = (...docs: Array<InvoiceRow & { next_version: number }>) => new Map(docs.map((d) => [d.id, d]));
const state: AllocationState = {
  settings: { lock_date: '2026-10-31', time_zone: null, default_currency: 'EUR' },
  payment: { row: payment, allocations: [earlier], refunds: [] },
  documents: documents(inv7, inv8),
  booked: new Map(),
  ids: { entryIds: [700, 701], allocationIds: [70, 71] },
  now,
};
const ctx = { orgId: 1, instant: now, operationKey: 'k-1' };
const asked = (over: Partial<AllocationRequest> = {}): AllocationRequest => ({
  payment_id: 30,
  allocations: [
    { invoice_id: 7, amount: '40' },
    { invoice_id: 8, amount: '30' },
  ],
  ...over,
});
const linesOf = (
  lines: ReadonlyArray<{ account: string; label: string; debit: { toFixed(n: number): string }; credit: { toFixed(n: number): string } }>,
) => lines.map((l) => [l.account, l.label, l.debit.toFixed(2), l.credit.toFixed(2)]);

describe('deciding an allocation of a partner credit', () => {
  it("given a payment with credit left, when allocated to two invoices, then each gets an allocation and an entry of its own, and the payment's allocated total moves", () => {
    const plan = decideAllocation(state, asked(), ctx);
    expect(plan.allocations.map((a) => [a.row.id, a.row.invoice_id, a.row.amount, a.row.journal_entry_id, a.row.seq])).toEqual([
      [70, 7, '40.00', 700, 0],
      [71, 8, '30.00', 701, 1],
    ]);
    expect(plan.allocations[0]!.row).toMatchObject({
      payment_id: 30,
      credit_note_id: null,
      operation_key: 'k-1',
      allocation_date: '2026-11-28',
    });
    expect(plan.allocations[0]!.entry).toMatchObject({
      id: 700,
      header: { kind: 'allocation', invoice_id: 7, payment_id: 30, journalname: 'Bank', reference: 'PAY-30 → INV-0007' },
    });
    expect(linesOf(plan.allocations[1]!.entry!.lines)).toEqual([
      ['1200 Accounts Receivable', 'Credit applied', '30.00', '0.00'],
      ['1200 Accounts Receivable', 'Settlement', '0.00', '30.00'],
    ]);
    expect(plan.payment).toMatchObject({ id: 30, allocated: '90.00' });
    expect(plan.documents.map((d) => [d.id, d.amount_paid, d.invoicestatus, d.version, d.updated_at])).toEqual([
      [7, '61.00', 'open', 4, now],
      [8, '30.00', 'open', 2, now],
    ]);
    expect(plan.event).toEqual({
      partner_id: 40,
      payment_id: 30,
      credit_note_id: null,
      credit_note_number: null,
      currency: 'EUR',
      allocation_date: '2026-11-28',
      allocations: [
        {
          allocation_id: 70,
          invoice_id: 7,
          invoicenumber: 'INV-0007',
          invoicetype: 'invoiceout',
          amount: 40,
          invoice_version: 4,
          trade_delta: 0,
        },
        {
          allocation_id: 71,
          invoice_id: 8,
          invoicenumber: 'INV-0008',
          invoicetype: 'invoiceout',
          amount: 30,
          invoice_version: 2,
          trade_delta: 0,
        },
      ],
    });
    expect(plan.reply.message).toBe('Allocated 70.00 to 2 document(s)');
    expect(plan.reply.allocations).toMatchObject([
      { id: 70, source: 'payment', invoicenumber: 'INV-0007', amount: 40, status: 'active', journal_entry_id: 700 },
      { id: 71, source: 'payment', invoicenumber: 'INV-0008', amount: 30, status: 'active', journal_entry_id: 701 },
    ]);
    expect(plan.reply.payment).toMatchObject({ allocated: 90, unallocated: 10 });
    expect(plan.reply.payment!.allocations.map((a) => a.id)).toEqual([60, 70, 71]);
    expect(plan.reply.invoices).toMatchObject([
      { id: 7, amount_paid: 61, due_amount: 60, invoicestatus: 'open' },
      { id: 8, amount_paid: 30, due_amount: 20, invoicestatus: 'open' },
    ]);
    expect(plan.reply.credit_note).toBeUndefined();
  });

  it('given an invoice allocated its whole due, when decided, then it is paid now', () => {
    const plan = decideAllocation(state, asked({ allocations: [{ invoice_id: 8, amount: '50' }] }), ctx);
    expect(plan.documents).toMatchObject([{ id: 8, amount_paid: '50.00', invoicestatus: 'paid', paid_at: now }]);
    expect(plan.reply.invoices).toMatchObject([{ id: 8, invoicestatus: 'paid', due_amount: 0 }]);
  });

  it('given a validated credit note, when allocated in full to an invoice, then the invoice is paid by it and the note settled, its version one more', () => {
    const plan = decideAllocation(
      { ...state, payment: null, documents: documents(inv7, note) },
      { credit_note_id: 9, allocations: [{ invoice_id: 7, amount: '30' }] },
      ctx,
    );
    expect(plan.payment).toBeNull();
    expect(plan.allocations.map((a) => a.row)).toMatchObject([
      { id: 70, payment_id: null, credit_note_id: 9, invoice_id: 7, journal_entry_id: 700 },
    ]);
    expect(plan.allocations[0]!.entry!.header).toMatchObject({ payment_id: null, journalname: 'Bank', reference: 'CN-0009 → INV-0007' });
    // The note too, in id order: settled by what it gave.
    expect(plan.documents.map((d) => [d.id, d.amount_paid, d.invoicestatus, d.paid_at, d.version])).toEqual([
      [7, '51.00', 'open', null, 4],
      [9, '30.00', 'paid', now, 6],
    ]);
    expect(plan.event).toMatchObject({ partner_id: 40, payment_id: null, credit_note_id: 9, credit_note_number: 'CN-0009' });
    expect(plan.reply.credit_note).toMatchObject({ id: 9, invoicestatus: 'paid', amount_paid: 30, due_amount: 0 });
    expect(plan.reply.payment).toBeUndefined();
    expect(plan.reply.invoices).toMatchObject([{ id: 7, amount_paid: 51, due_amount: 70 }]);
  });

  it('given a payment in another currency than the books, when allocated, then the credit is used at its worth, the invoice cleared at its own, and the difference realized', () => {
    // 100.00 USD received, worth 90.00 EUR; the invoice of 100.00 USD booked at 95.00 EUR.
    const dollars = postedPaymentRow({ currency: 'USD', exchange_rate: '0.9', accounting_amount: '90.00', allocated: '0.00' });
    const bill = doc({ invoicetotal: '100.00', amount_paid: '0.00', currency: 'USD', exchange_rate: '0.95' });
    const plan = decideAllocation(
      {
        ...state,
        payment: { row: dollars, allocations: [], refunds: [] },
        documents: documents(bill),
        booked: new Map([[7, '95.00']]),
      },
      asked({ allocations: [{ invoice_id: 7, amount: '50' }] }),
      ctx,
    );
    expect(linesOf(plan.allocations[0]!.entry!.lines)).toEqual([
      ['1200 Accounts Receivable', 'Credit applied', '45.00', '0.00'],
      ['1200 Accounts Receivable', 'Settlement', '0.00', '47.50'],
      ['6700 Exchange Losses', 'Exchange loss', '2.50', '0.00'],
    ]);
    expect(plan.event).toMatchObject({ currency: 'USD', allocations: [{ amount: 50, trade_delta: -2.5 }] });
    expect(plan.reply.payment).toMatchObject({ currency: 'USD', allocated: 50, unallocated: 50 });
  });

  it.each([
    ['naming no source', { payment_id: undefined }, 'validation_failed', 'name exactly one source'],
    ['naming both sources', { credit_note_id: 9 }, 'validation_failed', 'name exactly one source'],
    ['dated on the lock date', { allocation_date: '2026-10-31' }, 'validation_failed', 'the books are locked up to 2026-10-31'],
    ['of a payment the organization does not have', {}, 'not_found', 'Payment 30 not found', { payment: null }],
    [
      'of a voided payment',
      {},
      'invalid_state',
      'Payment 30 is voided; only a posted payment can be allocated',
      { payment: { ...state.payment!, row: { ...payment, status: 'voided' as const } } },
    ],
    [
      'of a credit note the organization does not have',
      { payment_id: undefined, credit_note_id: 9 },
      'not_found',
      'Credit note 9 not found',
    ],
    [
      'of an invoice named as a credit note',
      { payment_id: undefined, credit_note_id: 8, allocations: [{ invoice_id: 7, amount: '1' }] },
      'validation_failed',
      'INV-0008 is an invoiceout, not a credit note',
    ],
    [
      'of a credit note not validated',
      { payment_id: undefined, credit_note_id: 9 },
      'invalid_state',
      'CN-0009 is draft; only a validated credit note gives credit',
      { documents: documents(inv7, inv8, { ...note, invoicestatus: 'draft' }) },
    ],
    [
      'to an invoice the organization does not have',
      { allocations: [{ invoice_id: 99, amount: '1' }] },
      'not_found',
      'Invoice 99 not found',
    ],
    [
      'to the same invoice twice',
      {
        allocations: [
          { invoice_id: 8, amount: '10' },
          { invoice_id: 8, amount: '10' },
        ],
      },
      'validation_failed',
      'INV-0008 is named twice',
    ],
    [
      "to another partner's invoice",
      {},
      'validation_failed',
      "INV-0008 is partner 41's; payment 30 is partner 40's",
      { documents: documents(inv7, { ...inv8, partner_id: 41 }) },
    ],
    [
      'to a vendor bill',
      {},
      'validation_failed',
      'payment 30 settles invoiceout documents; INV-0008 is an invoicein',
      { documents: documents(inv7, { ...inv8, invoicetype: 'invoicein' as const }) },
    ],
    [
      'to a paid invoice',
      {},
      'invalid_state',
      'INV-0008 is paid; only open or overdue documents take allocations',
      { documents: documents(inv7, { ...inv8, invoicestatus: 'paid' as const }) },
    ],
    [
      'to an invoice in another currency',
      {},
      'validation_failed',
      'INV-0008 is in USD; payment 30 is in EUR',
      { documents: documents(inv7, { ...inv8, currency: 'USD' }) },
    ],
    [
      'of an amount finer than its currency',
      { allocations: [{ invoice_id: 8, amount: '1.001' }] },
      'validation_failed',
      'allocations.0.amount',
    ],
    [
      'of more than an invoice owes',
      { allocations: [{ invoice_id: 8, amount: '50.01' }] },
      'validation_failed',
      'exceeds the amount due 50.00',
    ],
    [
      'of more than the credit left',
      {
        allocations: [
          { invoice_id: 7, amount: '50' },
          { invoice_id: 8, amount: '30.01' },
        ],
      },
      'validation_failed',
      'exceed the 80.00 unallocated on payment 30',
    ],
    ['dated before the payment', { allocation_date: '2026-11-04' }, 'validation_failed', 'PAY-30'],
    [
      'dated before an invoice',
      {},
      'validation_failed',
      'INV-0008',
      { documents: documents(inv7, { ...inv8, invoicedatetime: new Date('2026-11-29T09:00:00Z') }) },
    ],
  ])('given an allocation %s, when decided, then it is refused', (_, over, code, message, given: Partial<AllocationState> = {}) => {
    const decide = () => decideAllocation({ ...state, ...given }, asked(over), ctx);
    expect(decide).toThrow(expect.objectContaining({ code }));
    expect(decide).toThrow(expect.objectContaining({ message: expect.stringContaining(message) }));
  });

  it('given refusals of several allocations, when decided, then all of them are told at once, the first one’s code first', () => {
    const decide = () =>
      decideAllocation(
        state,
        asked({
          allocations: [
            { invoice_id: 99, amount: '1' },
            { invoice_id: 8, amount: '60' },
          ],
        }),
        ctx,
      );
    expect(decide).toThrow(
      expect.objectContaining({
        code: 'not_found',
        errors: [
          expect.objectContaining({ field: 'allocations.0.invoice_id' }),
          expect.objectContaining({ field: 'allocations.1.amount' }),
        ],
      }),
    );
  });
});

describe('planning allocations', () => {
  it('given two allocations to the same document, when planned, then the second steps on from the paid amount the first leaves', () => {
    // What a credit note's settlement or a payment's allocations may ask: 50.00 due on INV-0008, 30.00 then 20.00 of it.
    const { steps, settled } = planAllocations({
      orgId: 1,
      source: { payment_id: 30, credit_note_id: null, account: '1200 Accounts Receivable', reference: 'PAY-30' },
      documents: documents(inv8),
      booked: new Map([[8, { amount: '50.00', booked: '40.00', places: 2 }]]),
      requested: [
        { invoice_id: 8, amount: '30' },
        { invoice_id: 8, amount: '20' },
      ],
      date: '2026-11-28',
      journal: 'Bank',
      operationKey: 'k-1',
    });
    expect(steps.map((s) => [s.row.seq, s.row.amount, s.row.journal_entry_id])).toEqual([
      [0, '30.00', null],
      [1, '20.00', null],
    ]);
    // The invoice, booked at 40.00 for 50.00, is cleared 24.00 then 16.00: together exactly what it booked.
    expect(steps.map((s) => s.lines!.find((l) => l.label === 'Settlement')!.credit.toFixed(2))).toEqual(['24.00', '16.00']);
    expect([...settled.values()]).toMatchObject([{ id: 8, amount_paid: '50.00', invoicestatus: 'paid' }]);
  });

  it('given a source whose own entry posted each part, when planned, then no allocation has lines or an entry of its own', () => {
    const { steps } = planAllocations({
      orgId: 1,
      source: { payment_id: 30, credit_note_id: null, account: null, postedBy: 300, reference: 'PAY-30' },
      documents: documents(inv7),
      booked: new Map(),
      requested: [{ invoice_id: 7, amount: '10' }],
      date: '2026-11-28',
      journal: 'Bank',
      operationKey: undefined,
    });
    expect(steps).toMatchObject([
      { row: { journal_entry_id: 300, operation_key: null, settles_credited: false }, entry: null, lines: null },
    ]);
  });
});
