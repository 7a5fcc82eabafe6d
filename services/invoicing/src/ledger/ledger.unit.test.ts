import type { LedgerAllocation, LedgerDocument, LedgerHistory, LedgerPayment, LedgerRefund } from './history';
import { Ledger } from './ledger';
import { agedBalances, agingBucket, statementOf } from './views';

const invoice = (over: Partial<LedgerDocument> = {}): LedgerDocument => ({
  id: 1,
  invoicenumber: 'INV-1',
  invoicetype: 'invoiceout',
  partner_id: 7,
  date: '2025-01-05',
  invoicedue: '2025-01-20',
  total: '100.00',
  currency: 'EUR',
  booked: '100.00',
  seq: 1,
  write_off: null,
  ...over,
});
const payment = (over: Partial<LedgerPayment> = {}): LedgerPayment => ({
  id: 3,
  partner_id: 7,
  direction: 'in',
  amount: '150.00',
  currency: 'EUR',
  date: '2025-02-10',
  reference: null,
  accounting_amount: '150.00',
  seq: 10,
  void: null,
  settled_type: 'invoiceout',
  ...over,
});
const allocation = (over: Partial<LedgerAllocation> = {}): LedgerAllocation => ({
  id: 1,
  payment_id: 3,
  credit_note_id: null,
  invoice_id: 1,
  amount: '100.00',
  date: '2025-02-10',
  seq: 10,
  voided: false,
  ...over,
});
const refund = (over: Partial<LedgerRefund> = {}): LedgerRefund => ({
  id: 9,
  payment_id: 3,
  credit_note_id: null,
  amount: '10.00',
  accounting_amount: '10.00',
  date: '2025-02-20',
  seq: 20,
  ...over,
});
const given = (h: Partial<LedgerHistory>) => new Ledger({ documents: [], payments: [], allocations: [], refunds: [], ...h }, 2);
const aged = (l: Ledger, asOf: string) => agedBalances(l, 'customer', asOf, new Map([[7, 'Dora']])).totals;
const rows = (s: ReturnType<typeof statementOf>) => s.lines.map((l) => [l.kind, l.debit, l.credit, l.balance]);

describe('the ledger', () => {
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

  it('given a USD invoice booked at 0.90 paid with 100 USD at 0.95, when stated, then it shows the 5.00 gain on its own line and owes 0', () => {
    const ledger = given({
      documents: [invoice({ currency: 'USD', booked: '90.00' })],
      payments: [payment({ currency: 'USD', amount: '100.00', accounting_amount: '95.00', date: '2025-01-10' })],
      allocations: [allocation({ date: '2025-01-10' })],
    });
    const statement = statementOf(ledger, 7, 'customer', '2025-01-01', '2025-01-31', 'EUR');
    expect(rows(statement)).toEqual([
      ['invoice', 90, 0, 90],
      ['payment', 0, 95, -5],
      ['allocation', 0, 0, -5],
      ['exchange_difference', 5, 0, 0],
    ]);
    expect(statement.lines[3]).toMatchObject({ currency: 'EUR', amount_currency: 5, reference: 'PAY-3 → INV-1' });
    expect(statement.closing_balance).toBe(0);
    expect(aged(ledger, '2025-01-31')).toMatchObject({ total: 0, unallocated_credit: 0 });
  });

  it('given a partly paid foreign invoice, when aged, then its open amount is what it booked less the worth of what settled it', () => {
    // 100.00 USD booked at 0.9235: 92.35 EUR; 50.00 USD of it settled is worth 46.18 (46.175 rounded), so 46.17 is open,
    // where converting the 50.00 USD still open would say 46.18.
    const ledger = given({
      documents: [invoice({ currency: 'USD', booked: '92.35' })],
      payments: [payment({ currency: 'USD', amount: '50.00', accounting_amount: '46.18' })],
      allocations: [allocation({ amount: '50.00' })],
    });
    const [row] = agedBalances(ledger, 'customer', '2025-02-10', new Map()).partners;
    expect(row?.documents).toEqual([expect.objectContaining({ open_amount_currency: 50, open_amount: 46.17 })]);
    expect(row?.total).toBe(46.17);
  });

  it('given the last settlement of a foreign invoice, when aged, then the remainder is taken and nothing is left', () => {
    const ledger = given({
      documents: [invoice({ currency: 'USD', booked: '92.35' })],
      payments: [
        payment({ currency: 'USD', amount: '33.33', accounting_amount: '30.78' }),
        payment({ id: 4, currency: 'USD', amount: '66.67', accounting_amount: '61.56', seq: 11 }),
      ],
      allocations: [allocation({ amount: '33.33' }), allocation({ id: 2, payment_id: 4, amount: '66.67', seq: 11 })],
    });
    expect(aged(ledger, '2025-02-10')).toMatchObject({ total: 0 });
    const statement = statementOf(ledger, 7, 'customer', '2025-01-01', '2025-02-28', 'EUR');
    expect(statement.closing_balance).toBe(0);
    // 30.78 + 61.57 = 92.35 cleared, exactly what was booked; the second payment, worth 61.56, realizes a cent of loss.
    expect(statement.lines.filter((l) => l.kind === 'exchange_difference').map((l) => [l.payment_id, l.debit, l.credit])).toEqual([
      [4, 0, 0.01],
    ]);
  });

  it('given a refund at another rate, when stated, then the refund line is the money and the difference is realized beside it', () => {
    // 100 USD of credit at 0.90 (90.00), 40 refunded at 0.95: the share is worth 36.00, the money 38.00.
    const ledger = given({
      payments: [payment({ currency: 'USD', amount: '100.00', accounting_amount: '90.00', settled_type: null })],
      refunds: [refund({ amount: '40.00', accounting_amount: '38.00' })],
    });
    const statement = statementOf(ledger, 7, 'customer', '2025-02-01', '2025-02-28', 'EUR');
    expect(rows(statement)).toEqual([
      ['payment', 0, 90, -90],
      ['refund', 38, 0, -52],
      ['exchange_difference', 0, 2, -54],
    ]);
    expect(aged(ledger, '2025-02-28')).toMatchObject({ unallocated_credit: 54, total: -54 });
  });

  it('given a void of a payment that realized a gain, when stated, then the gain is reversed with it and the invoice owes again', () => {
    const ledger = given({
      documents: [invoice({ currency: 'USD', booked: '90.00' })],
      payments: [
        payment({
          currency: 'USD',
          amount: '100.00',
          accounting_amount: '95.00',
          date: '2025-01-10',
          void: { date: '2025-01-15', seq: 12 },
        }),
      ],
      allocations: [allocation({ date: '2025-01-10', voided: true })],
    });
    const statement = statementOf(ledger, 7, 'customer', '2025-01-01', '2025-01-31', 'EUR');
    expect(rows(statement)).toEqual([
      ['invoice', 90, 0, 90],
      ['payment', 0, 95, -5],
      ['allocation', 0, 0, -5],
      ['exchange_difference', 5, 0, 0],
      ['void', 95, 0, 95],
      ['exchange_difference', 0, 5, 90],
    ]);
    expect(aged(ledger, '2025-01-31')).toMatchObject({ '1_30': 90, total: 90 });
  });

  it('counts an allocation from the latest of its date, its document and its source, and undoes it from the void', () => {
    const ledger = given({
      documents: [invoice()],
      payments: [payment({ void: { date: '2025-03-01', seq: 12 } })],
      // Dated before the payment it uses: it cannot settle anything before the money came.
      allocations: [allocation({ date: '2025-01-01', voided: true })],
    });
    expect(aged(ledger, '2025-02-09')).toMatchObject({ '1_30': 100, unallocated_credit: 0, total: 100 });
    expect(aged(ledger, '2025-02-10')).toMatchObject({ '1_30': 0, unallocated_credit: 50, total: -50 });
    // Voided: the invoice owes again, the payment gives nothing.
    expect(aged(ledger, '2025-03-01')).toMatchObject({ '31_60': 100, unallocated_credit: 0, total: 100 });
  });

  it('keeps a void dated before its payment as the journal has it: a debit until the payment is dated', () => {
    const ledger = given({ payments: [payment({ date: '2025-02-10', void: { date: '2025-02-01', seq: 12 } })] });
    expect(aged(ledger, '2025-02-05')).toMatchObject({ unallocated_credit: -150, total: 150 });
    expect(aged(ledger, '2025-02-10')).toMatchObject({ unallocated_credit: 0, total: 0 });
  });

  it('values an unallocated foreign payment at its bank line, and a statement closes on the aged total', () => {
    const ledger = given({
      documents: [invoice({ currency: 'USD', total: '100.00', booked: '92.34' })],
      payments: [payment({ currency: 'USD', amount: '40.00', accounting_amount: '40.00', settled_type: null })],
      refunds: [refund()],
    });
    expect(aged(ledger, '2025-02-28')).toMatchObject({ '31_60': 92.34, unallocated_credit: 30, total: 62.34 });
    const statement = statementOf(ledger, 7, 'customer', '2025-02-01', '2025-02-28', 'EUR');
    expect(statement.opening_balance).toBe(92.34);
    expect(rows(statement)).toEqual([
      ['payment', 0, 40, 52.34],
      ['refund', 10, 0, 62.34],
    ]);
    expect(statement.closing_balance).toBe(62.34);
  });

  it('leaves a vendor bill out of receivables and puts it in payables', () => {
    const ledger = given({ documents: [invoice({ invoicetype: 'invoicein' })] });
    expect(aged(ledger, '2025-01-10').total).toBe(0);
    expect(agedBalances(ledger, 'vendor', '2025-01-10', new Map()).totals).toMatchObject({ current: 100, total: 100 });
  });

  it("states a vendor's side with the payable's columns: a bill is credited, a payment to the vendor debited", () => {
    const ledger = given({
      documents: [invoice({ invoicetype: 'invoicein' }), invoice({ id: 2, invoicenumber: 'INV-2', date: '2025-02-03', seq: 2 })],
      payments: [payment({ direction: 'out', amount: '60.00', accounting_amount: '60.00', settled_type: 'invoicein' })],
    });
    const vendor = statementOf(ledger, 7, 'vendor', '2025-02-01', '2025-02-28', 'EUR');
    expect([vendor.opening_balance, vendor.closing_balance]).toEqual([100, 40]);
    expect(rows(vendor)).toEqual([['payment', 60, 0, 40]]);
    // The customer invoice of the same partner is on the other side alone.
    const customer = statementOf(ledger, 7, 'customer', '2025-02-01', '2025-02-28', 'EUR');
    expect(rows(customer)).toEqual([['invoice', 100, 0, 100]]);
    expect(agedBalances(ledger, 'vendor', '2025-02-28', new Map()).totals.total).toBe(vendor.closing_balance);
  });

  it('credits a refund from a vendor and the void of a payment to it on the vendor side, as a payable takes them', () => {
    const ledger = given({
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
          seq: 11,
          void: { date: '2025-02-19', seq: 13 },
          settled_type: null,
        }),
      ],
      allocations: [allocation()],
      refunds: [refund({ amount: '20.00', accounting_amount: '20.00' })],
    });
    const vendor = statementOf(ledger, 7, 'vendor', '2025-02-01', '2025-02-28', 'EUR');
    expect(vendor.lines.map((l) => [l.date, l.kind, l.debit, l.credit, l.balance])).toEqual([
      ['2025-02-10', 'payment', 150, 0, -50],
      ['2025-02-10', 'allocation', 0, 0, -50],
      ['2025-02-12', 'payment', 30, 0, -80],
      ['2025-02-19', 'void', 0, 30, -50],
      ['2025-02-20', 'refund', 0, 20, -30],
    ]);
    expect(agedBalances(ledger, 'vendor', '2025-02-28', new Map()).totals.total).toBe(vendor.closing_balance);
  });

  it('writes off at the worth of what is left, so a partly paid foreign invoice closes at exactly 0', () => {
    const ledger = given({
      documents: [invoice({ currency: 'USD', booked: '92.35', write_off: { amount: '50.00', date: '2025-03-01', seq: 30 } })],
      payments: [payment({ currency: 'USD', amount: '50.00', accounting_amount: '46.18' })],
      allocations: [allocation({ amount: '50.00' })],
    });
    const statement = statementOf(ledger, 7, 'customer', '2025-03-01', '2025-03-31', 'EUR');
    expect(rows(statement)).toEqual([['write_off', 0, 46.17, 0]]);
    expect(aged(ledger, '2025-03-01').total).toBe(0);
  });
});
