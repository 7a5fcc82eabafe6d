import { dec } from '@bo/kernel';
import fc from 'fast-check';
import {
  minorUnitRefusal,
  allocationLines,
  allocationRefusals,
  ledgerSide,
  paymentLines,
  refundLines,
  settlementDirection,
  statusAfterSettlement,
  unallocatedOf,
  valueOfShare,
  valueOfStep,
  voidLines,
  writeOffLines,
  writeOffRefusal,
  type CreditSource,
  type SettleableDocument,
} from './cash';
import { isBalanced, tradeMove } from './journal';

const doc = (over: Partial<SettleableDocument> = {}): SettleableDocument => ({
  id: 1,
  invoicenumber: 'INV-1',
  invoicetype: 'invoiceout',
  partner_id: 7,
  invoicestatus: 'open',
  invoicedue: null,
  invoicetotal: '100.00',
  amount_paid: '0.00',
  written_off_amount: '0.00',
  currency: 'EUR',
  ...over,
});
const source = (over: Partial<CreditSource> = {}): CreditSource => ({
  partner_id: 7,
  settles: 'invoiceout',
  currency: 'EUR',
  unallocated: '100.00',
  amountField: 'amount',
  label: 'the payment',
  ...over,
});
const docs = (...rows: SettleableDocument[]) => new Map(rows.map((r) => [r.id, r]));
const fields = (refusals: ReturnType<typeof allocationRefusals>) => refusals.map((r) => `${r.code}:${r.field}`);

describe('cash application rules', () => {
  it('accepts allocations within each due and the source', () => {
    expect(
      allocationRefusals(
        source(),
        [
          { invoice_id: 1, amount: '60' },
          { invoice_id: 2, amount: '40' },
        ],
        docs(doc(), doc({ id: 2 })),
        '2026-01-01',
      ),
    ).toEqual([]);
  });

  it('refuses each problem naming its field', () => {
    const today = '2026-03-01';
    const all = docs(
      doc({ id: 1, amount_paid: '90.00' }),
      doc({ id: 2, partner_id: 8 }),
      doc({ id: 3, invoicetype: 'invoicein' }),
      doc({ id: 4, invoicestatus: 'draft' }),
      doc({ id: 5, currency: 'USD' }),
      doc({ id: 6, invoicestatus: 'written_off' }),
    );
    const refusals = allocationRefusals(
      source({ unallocated: '5' }),
      [
        { invoice_id: 1, amount: '10.01' },
        { invoice_id: 2, amount: '1' },
        { invoice_id: 3, amount: '1' },
        { invoice_id: 4, amount: '1' },
        { invoice_id: 5, amount: '1' },
        { invoice_id: 6, amount: '1' },
        { invoice_id: 9, amount: '1' },
        { invoice_id: 1, amount: '1' },
      ],
      all,
      today,
    );
    expect(fields(refusals)).toEqual([
      'validation_failed:allocations.0.amount',
      'validation_failed:allocations.1.invoice_id',
      'validation_failed:allocations.2.invoice_id',
      'invalid_state:allocations.3.invoice_id',
      'validation_failed:currency',
      'invalid_state:allocations.5.invoice_id',
      'not_found:allocations.6.invoice_id',
      'validation_failed:allocations.7.invoice_id',
      'validation_failed:amount',
    ]);
  });

  it('takes an overdue invoice, and a document without a currency in any', () => {
    const overdue = doc({ invoicedue: '2026-01-01', currency: null });
    expect(allocationRefusals(source(), [{ invoice_id: 1, amount: '100' }], docs(overdue), '2026-02-01')).toEqual([]);
  });

  it('settles to paid exactly at the total, counting what was written off', () => {
    expect(statusAfterSettlement(doc(), '99.99')).toBe('open');
    expect(statusAfterSettlement(doc(), '100')).toBe('paid');
    expect(statusAfterSettlement(doc({ written_off_amount: '0.01' }), '99.99')).toBe('paid');
    expect(unallocatedOf({ amount: '100', allocated: '60.10', refunded: '0.90' }).toFixed(2)).toBe('39.00');
  });

  it('moves money the way each document settles, on the side it belongs to', () => {
    expect(['invoiceout', 'creditout', 'invoicein', 'creditin'].map((t) => settlementDirection(t as never))).toEqual([
      'in',
      'out',
      'out',
      'in',
    ]);
    expect(ledgerSide('in')).toBe('customer');
    expect(ledgerSide('out')).toBe('vendor');
    expect(ledgerSide('out', 'creditout')).toBe('customer');
    expect(ledgerSide('in', 'creditin')).toBe('vendor');
  });

  it('posts a payment to each document account and its rest to the default trade account', () => {
    const lines = paymentLines('in', '150', 'Bank', [
      { account: '1200 Accounts Receivable', amount: '50' },
      { account: '1210 EU', amount: '30' },
      { account: '1200 Accounts Receivable', amount: '20' },
    ]);
    expect(lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['Bank', '150.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '120.00'],
      ['1210 EU', '0.00', '30.00'],
    ]);
    const out = paymentLines('out', '10', 'Bank', []);
    expect(out.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['2000 Accounts Payable', '10.00', '0.00'],
      ['Bank', '0.00', '10.00'],
    ]);
  });

  it('posts an allocation as its own two lines, on one account or across two', () => {
    const view = (from: string, to: string) =>
      allocationLines('invoiceout', { account: from, value: '5' }, { account: to, value: '5' }).map((l) => [
        l.account,
        l.debit.toFixed(2),
        l.credit.toFixed(2),
      ]);
    expect(view('1200 Accounts Receivable', '1200 Accounts Receivable')).toEqual([
      ['1200 Accounts Receivable', '5.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '5.00'],
    ]);
    expect(view('1200 Accounts Receivable', '1210 EU')).toEqual([
      ['1200 Accounts Receivable', '5.00', '0.00'],
      ['1210 EU', '0.00', '5.00'],
    ]);
  });

  it('writes off only an open or overdue customer invoice with something due', () => {
    expect(writeOffRefusal(doc(), '2026-01-01')).toBeNull();
    expect(writeOffRefusal(doc({ invoicestatus: 'draft' }), '2026-01-01')).toMatch(/draft/);
    expect(writeOffRefusal(doc({ invoicestatus: 'paid' }), '2026-01-01')).toMatch(/paid/);
    expect(writeOffRefusal(doc({ invoicestatus: 'cancelled' }), '2026-01-01')).toMatch(/cancelled/);
    expect(writeOffRefusal(doc({ invoicetype: 'invoicein' }), '2026-01-01')).toMatch(/invoicein/);
    expect(writeOffRefusal(doc({ invoicedue: '2025-12-01' }), '2026-01-01')).toBeNull();
  });

  it('balances every entry it makes, for any amounts (fast-check)', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`cash entries property seed: ${seed}`);
    const cents = fc.integer({ min: 1, max: 10_000_000 }).map((c) => dec(c).dividedBy(100).toFixed(2));
    fc.assert(
      fc.property(
        fc.constantFrom('in' as const, 'out' as const),
        fc.array(fc.tuple(fc.constantFrom('1200 Accounts Receivable', '1210 EU', '2000 Accounts Payable'), cents), { maxLength: 5 }),
        cents,
        (direction, parts, extra) => {
          const shares = parts.map(([account, amount]) => ({ account, amount }));
          const total = shares.reduce((s, p) => s.plus(dec(p.amount)), dec(extra)).toFixed(2);
          for (const lines of [
            paymentLines(direction, total, 'Bank', shares),
            voidLines(direction, total, 'Bank', shares),
            refundLines(direction, { credit: extra, paid: extra }, '1200 Accounts Receivable', 'Bank'),
            allocationLines(
              direction === 'in' ? 'invoiceout' : 'invoicein',
              { account: '1200 Accounts Receivable', value: extra },
              { account: '1210 EU', value: extra },
            ),
            writeOffLines(extra, '1200 Accounts Receivable'),
          ]) {
            expect(isBalanced(lines)).toBe(true);
          }
        },
      ),
      { seed, numRuns: 200 },
    );
  });
});

describe('values in the accounting currency', () => {
  const view = (lines: ReturnType<typeof paymentLines>) => lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)]);

  it("tells the trade accounts' move of each posting, debit minus credit, the exchange difference and the bank left out", () => {
    // Money in worth 95.00 clearing 90.00 of receivable and leaving 3.00 of credit: the partner owes 93.00 less.
    expect(tradeMove(paymentLines('in', '98', 'Bank', [{ account: '1200 Accounts Receivable', amount: '90' }], '3')).toFixed(2)).toBe(
      '-93.00',
    );
    // A vendor paid: what is owed to it goes down, so the partner's balance goes up.
    expect(tradeMove(paymentLines('out', '95', 'Bank', [{ account: '2000 Accounts Payable', amount: '90' }], '0')).toFixed(2)).toBe(
      '90.00',
    );
    // Credit worth 40.01 clearing 45.01: the receivable moves by the realized difference, across accounts too.
    const from = { account: '1200 Accounts Receivable', value: '40.01' };
    expect(tradeMove(allocationLines('invoiceout', from, { account: '1210 EU', value: '45.01' })).toFixed(2)).toBe('-5.00');
    expect(tradeMove(refundLines('out', { credit: '90', paid: '95' }, '1200 Accounts Receivable', 'Bank')).toFixed(2)).toBe('90.00');
    expect(tradeMove(writeOffLines('12.5', '1200 Accounts Receivable')).toFixed(2)).toBe('-12.50');
    // A void is its payment mirrored.
    expect(tradeMove(voidLines('in', '98', 'Bank', [{ account: '1200 Accounts Receivable', amount: '90' }], '3')).toFixed(2)).toBe('93.00');
  });

  it('values a share in proportion to what the item booked, exactly what it booked for the whole', () => {
    const invoice = { amount: '100.00', booked: '90.01', places: 2 };
    expect(valueOfShare(invoice, '33.33').toFixed(2)).toBe('30.00');
    expect(valueOfShare(invoice, '100').toFixed(2)).toBe('90.01');
    // Posted as it is: worth its own amount, whatever its decimals.
    expect(valueOfShare({ amount: '100', booked: '100', places: 2 }, '0.005').toFixed()).toBe('0.005');
  });

  it('posts the realized difference: a gain when the money is worth more than the receivable it clears, a loss when less', () => {
    expect(view(paymentLines('in', '95', 'Bank', [{ account: '1200 Accounts Receivable', amount: '90' }], '0'))).toEqual([
      ['Bank', '95.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '90.00'],
      ['7700 Exchange Gains', '0.00', '5.00'],
    ]);
    // A vendor paid more than the bill booked: a loss.
    expect(view(paymentLines('out', '95', 'Bank', [{ account: '2000 Accounts Payable', amount: '90' }], '0'))).toEqual([
      ['2000 Accounts Payable', '90.00', '0.00'],
      ['Bank', '0.00', '95.00'],
      ['6700 Exchange Losses', '5.00', '0.00'],
    ]);
    // Credit worth 40.01 clearing 45.01 of receivable on the same account: both lines and the loss.
    const from = { account: '1200 Accounts Receivable', value: '40.01' };
    expect(view(allocationLines('invoiceout', from, { account: '1200 Accounts Receivable', value: '45.01' }))).toEqual([
      ['1200 Accounts Receivable', '40.01', '0.00'],
      ['1200 Accounts Receivable', '0.00', '45.01'],
      ['6700 Exchange Losses', '5.00', '0.00'],
    ]);
    // Worth nothing in the accounting currency (a cent at a rate of 0.01): no line.
    expect(allocationLines('invoiceout', { ...from, value: '0' }, { ...from, value: '0' })).toEqual([]);
    // A customer's credit booked at 90.00 paid back for 95.00 out of the bank: a loss; a vendor's paid back for 95.00 in: a gain.
    expect(view(refundLines('out', { credit: '90', paid: '95' }, '1200 Accounts Receivable', 'Bank'))).toEqual([
      ['1200 Accounts Receivable', '90.00', '0.00'],
      ['Bank', '0.00', '95.00'],
      ['6700 Exchange Losses', '5.00', '0.00'],
    ]);
    expect(view(refundLines('in', { credit: '90', paid: '95' }, '2000 Accounts Payable', 'Bank'))).toEqual([
      ['Bank', '95.00', '0.00'],
      ['2000 Accounts Payable', '0.00', '90.00'],
      ['7700 Exchange Gains', '0.00', '5.00'],
    ]);
  });

  it('clears an item exactly, piece by piece at any rates, and balances every entry (fast-check)', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`exchange differences property seed: ${seed}`);
    const cents = fc.integer({ min: 1, max: 10_000_000 });
    const rate = fc.integer({ min: 1, max: 10_000_000 }).map((micro) => dec(micro).div(1e6));
    fc.assert(
      fc.property(
        cents,
        rate,
        rate,
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 6 }),
        (total, docRate, payRate, weights) => {
          const amount = dec(total).div(100);
          const invoice = { amount, booked: amount.times(docRate).toDecimalPlaces(2), places: 2 };
          const payment = { amount, booked: amount.times(payRate).toDecimalPlaces(2), places: 2 };
          const sumWeights = weights.reduce((a, b) => a + b, 0);
          let settled = dec(0);
          let cleared = dec(0);
          let used = dec(0);
          weights.forEach((w, i) => {
            const piece =
              i === weights.length - 1
                ? amount.minus(settled)
                : amount.times(w).div(sumWeights).toDecimalPlaces(2, 1).clampedTo(0, amount.minus(settled));
            const to = valueOfStep(invoice, settled, settled.plus(piece));
            const from = valueOfStep(payment, settled, settled.plus(piece));
            const lines = allocationLines('invoiceout', { account: '1200', value: from }, { account: '1200', value: to });
            expect(isBalanced(lines)).toBe(true);
            settled = settled.plus(piece);
            cleared = cleared.plus(to);
            used = used.plus(from);
          });
          expect(cleared.toFixed(2)).toBe(dec(invoice.booked).toFixed(2));
          expect(used.toFixed(2)).toBe(dec(payment.booked).toFixed(2));
        },
      ),
      { seed, numRuns: 300 },
    );
  });
});

describe("cash in its currency's minor unit", () => {
  it('takes as many decimals as the currency has, and refuses one more by field', () => {
    expect(minorUnitRefusal('amount', '1.234', 'BHD')).toBeNull();
    expect(minorUnitRefusal('amount', '1.2300', 'EUR')).toBeNull();
    expect(minorUnitRefusal('amount', '100', 'JPY')).toBeNull();
    expect(minorUnitRefusal('amount', '0.0001', 'CLF')).toBeNull();
    expect(minorUnitRefusal('amount', '1.234', 'EUR')).toMatchObject({
      code: 'validation_failed',
      field: 'amount',
      message: expect.stringContaining('EUR has (2)'),
    });
    expect(minorUnitRefusal('allocations.0.amount', '100.5', 'JPY')).toMatchObject({ field: 'allocations.0.amount' });
    // A document stored without a currency counts in cents.
    expect(minorUnitRefusal('amount', '0.001', null)).toMatchObject({ field: 'amount' });
  });
});
