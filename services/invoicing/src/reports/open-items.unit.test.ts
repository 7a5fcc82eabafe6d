import {
  agedBalances,
  agingBucket,
  OpenItems,
  statementOf,
  type BookHistory,
  type HistoryDocument,
  type HistoryPayment,
} from './open-items';

const invoice = (over: Partial<HistoryDocument> = {}): HistoryDocument => ({
  id: 1,
  invoicenumber: 'INV-1',
  invoicetype: 'invoiceout',
  partner_id: 7,
  date: '2025-01-05',
  invoicedue: '2025-01-20',
  total: '100.00',
  currency: 'EUR',
  accounting_total: '100.00',
  written_off_amount: '0.00',
  write_off_date: null,
  ...over,
});
const payment = (over: Partial<HistoryPayment> = {}): HistoryPayment => ({
  id: 3,
  partner_id: 7,
  direction: 'in',
  amount: '150.00',
  currency: 'EUR',
  date: '2025-02-10',
  reference: null,
  accounting_amount: '150.00',
  void_date: null,
  settled_type: 'invoiceout',
  ...over,
});
const book = (h: Partial<BookHistory>) => new OpenItems({ documents: [], payments: [], allocations: [], refunds: [], ...h });
const aged = (b: OpenItems, asOf: string) => agedBalances(b, 'customer', asOf, 2, new Map([[7, 'Dora']])).totals;

describe('open items as of a day', () => {
  it('buckets by days past due: due that day is current, 30 is 1_30, 31 is 31_60, 91 is over_90', () => {
    expect([0, -5, 1, 30, 31, 60, 61, 90, 91].map(agingBucket)).toEqual([
      'current',
      'current',
      '1_30',
      '1_30',
      '31_60',
      '31_60',
      '61_90',
      '61_90',
      'over_90',
    ]);
  });

  it('counts an allocation from the latest of its date, its document and its source, and undoes it from the void', () => {
    const b = book({
      documents: [invoice()],
      payments: [payment({ void_date: '2025-03-01' })],
      // Dated before the payment it uses: it cannot settle anything before the money came.
      allocations: [
        { id: 1, payment_id: 3, credit_note_id: null, invoice_id: 1, amount: '100.00', date: '2025-01-01', void_date: '2025-03-01' },
      ],
    });
    expect(aged(b, '2025-02-09')).toMatchObject({ '1_30': 100, unallocated_credit: 0, total: 100 });
    expect(aged(b, '2025-02-10')).toMatchObject({ '1_30': 0, unallocated_credit: 50, total: -50 });
    // Voided: the invoice owes again, the payment gives nothing.
    expect(aged(b, '2025-03-01')).toMatchObject({ '31_60': 100, unallocated_credit: 0, total: 100 });
  });

  it('keeps a void dated before its payment as the journal has it: a debit until the payment is dated', () => {
    const b = book({ payments: [payment({ date: '2025-02-10', void_date: '2025-02-01' })] });
    expect(aged(b, '2025-02-05')).toMatchObject({ unallocated_credit: -150, total: 150 });
    expect(aged(b, '2025-02-10')).toMatchObject({ unallocated_credit: 0, total: 0 });
  });

  it('converts each item at the rate its entry posted, and a statement closes on the aged total', () => {
    const b = book({
      documents: [invoice({ currency: 'USD', total: '100.00', accounting_total: '92.34' })],
      payments: [payment({ currency: 'USD', amount: '40.00', accounting_amount: '40.00', settled_type: null })],
      refunds: [{ id: 9, payment_id: 3, credit_note_id: null, amount: '10.00', date: '2025-02-20' }],
    });
    expect(aged(b, '2025-02-28')).toMatchObject({ '31_60': 92.34, unallocated_credit: 30, total: 62.34 });
    const statement = statementOf(b, 7, 'customer', '2025-02-01', '2025-02-28', 2);
    expect(statement.opening_balance).toBe(92.34);
    expect(statement.lines.map((l) => [l.kind, l.debit, l.credit, l.balance])).toEqual([
      ['payment', 0, 40, 52.34],
      ['refund', 10, 0, 62.34],
    ]);
    expect(statement.closing_balance).toBe(62.34);
  });

  it('leaves a vendor bill out of receivables and puts it in payables', () => {
    const b = book({ documents: [invoice({ invoicetype: 'invoicein' })] });
    expect(aged(b, '2025-01-10').total).toBe(0);
    expect(agedBalances(b, 'vendor', '2025-01-10', 2, new Map()).totals).toMatchObject({ current: 100, total: 100 });
  });

  it("states a vendor's side with the payable's columns: a bill is credited, a payment to the vendor debited", () => {
    const b = book({
      documents: [invoice({ invoicetype: 'invoicein' }), invoice({ id: 2, invoicenumber: 'INV-2', date: '2025-02-03' })],
      payments: [payment({ direction: 'out', amount: '60.00', accounting_amount: '60.00', settled_type: 'invoicein' })],
    });
    const vendor = statementOf(b, 7, 'vendor', '2025-02-01', '2025-02-28', 2);
    expect([vendor.opening_balance, vendor.closing_balance]).toEqual([100, 40]);
    expect(vendor.lines.map((l) => [l.kind, l.debit, l.credit, l.balance])).toEqual([['payment', 60, 0, 40]]);
    // The customer invoice of the same partner is on the other side alone.
    const customer = statementOf(b, 7, 'customer', '2025-02-01', '2025-02-28', 2);
    expect(customer.lines.map((l) => [l.kind, l.debit, l.credit, l.balance])).toEqual([['invoice', 100, 0, 100]]);
    expect(agedBalances(b, 'vendor', '2025-02-28', 2, new Map()).totals.total).toBe(vendor.closing_balance);
  });

  it('credits a refund from a vendor and the void of a payment to it on the vendor side, as a payable takes them', () => {
    const b = book({
      documents: [invoice({ invoicetype: 'invoicein' })],
      payments: [
        // Paid 150.00 against a bill of 100.00: 50.00 of credit with the vendor, 20.00 of it refunded.
        payment({ direction: 'out', settled_type: 'invoicein' }),
        // A second payment to it, voided a week later.
        payment({
          id: 4,
          direction: 'out',
          amount: '30.00',
          accounting_amount: '30.00',
          date: '2025-02-12',
          void_date: '2025-02-19',
          settled_type: null,
        }),
      ],
      allocations: [{ id: 1, payment_id: 3, credit_note_id: null, invoice_id: 1, amount: '100.00', date: '2025-02-10', void_date: null }],
      refunds: [{ id: 9, payment_id: 3, credit_note_id: null, amount: '20.00', date: '2025-02-20' }],
    });
    const vendor = statementOf(b, 7, 'vendor', '2025-02-01', '2025-02-28', 2);
    expect(vendor.lines.map((l) => [l.date, l.kind, l.debit, l.credit, l.balance])).toEqual([
      ['2025-02-10', 'payment', 150, 0, -50],
      ['2025-02-10', 'allocation', 0, 0, -50],
      ['2025-02-12', 'payment', 30, 0, -80],
      ['2025-02-19', 'void', 0, 30, -50],
      ['2025-02-20', 'refund', 0, 20, -30],
    ]);
    expect(agedBalances(b, 'vendor', '2025-02-28', 2, new Map()).totals.total).toBe(vendor.closing_balance);
  });
});
