import type { EventEnvelope } from '@bo/contracts';
import { cancelledData, convertedData, paymentData, validatedData } from '../../test/ledger-events';
import { cashStep } from './cash-plan';
import { ledgerStep, sumCurrencyMoves } from './ledger-plan';

const envelope = (type: string, data: Record<string, unknown>, org_id = 1): EventEnvelope => ({
  id: `${type}:${JSON.stringify(data)}:${org_id}`,
  type,
  occurred_at: '2026-03-01T10:00:00',
  org_id,
  data,
});
const validated = (invoiceId: number, org = 1) => ledgerStep(envelope('invoicing.invoice.validated', validatedData(7, invoiceId), org));
const cancelled = (invoiceId: number) => ledgerStep(envelope('invoicing.invoice.cancelled', cancelledData(7, invoiceId)));
const paid = (invoiceId: number, paymentId: number) =>
  ledgerStep(envelope('invoicing.invoice.payment_registered', paymentData(7, invoiceId, paymentId, 40.05)));
const converted = (invoiceId: number) => ledgerStep(envelope('sales.quotation.converted', convertedData(7, invoiceId)));

describe('the ledger applied as sets', () => {
  it('reads what each event asks: a validation releases and posts, a payment posts, a conversion commits', () => {
    expect(validated(1)).toMatchObject({
      releases: 1,
      posts: { source: 'invoice', source_id: 1, type: 'invoice', amount: '100', balance_effect: '100', date: '2026-03-01' },
    });
    expect(ledgerStep(envelope('invoicing.invoice.validated', validatedData(7, 2, 'creditout', 50))).posts).toMatchObject({
      type: 'credit_note',
      balance_effect: '-50',
    });
    expect(paid(1, 9)).toMatchObject({
      posts: { source: 'payment', source_id: 9, invoice_id: 1, balance_effect: '-40.05', receivable_effect: '-40.05' },
    });
    // A vendor document moves the balance, never what the partner owes as a customer.
    for (const [type, balance] of [
      ['invoicein', '-50'],
      ['creditin', '50'],
    ] as const) {
      expect(ledgerStep(envelope('invoicing.invoice.validated', validatedData(7, 2, type, 50))).posts).toMatchObject({
        balance_effect: balance,
        receivable_effect: '0',
      });
    }
    expect(ledgerStep(envelope('invoicing.invoice.validated', validatedData(7, 2, 'creditout', 50))).posts).toMatchObject({
      receivable_effect: '-50',
    });
    expect(paid(1, 9).releases).toBeUndefined();
    expect(cancelled(3)).toMatchObject({ releases: 3 });
    expect(converted(4)).toMatchObject({ commits: { invoice_id: 4, partner_id: 7, quotation_number: 'QUO-4', amount: '115' } });
  });

  it('commits only a conversion to a customer invoice: one to a credit note or a vendor document commits nothing', () => {
    for (const invoicetype of ['creditout', 'invoicein', 'creditin']) {
      const step = ledgerStep(envelope('sales.quotation.converted', convertedData(7, 5, 115, invoicetype)));
      expect(step).toMatchObject({ commitsNothing: true });
      expect([step.commits, step.posts, step.releases]).toEqual([undefined, undefined, undefined]);
    }
    expect(converted(5).commitsNothing).toBeUndefined();
  });

  it('refuses an event whose data it cannot read, so the inbox retries and then dead-letters it', () => {
    expect(() => ledgerStep(envelope('invoicing.invoice.validated', { invoice_id: 'not a number' }))).toThrow();
  });

  it('sums moves per partner and currency, and the rate of the documents that tell their accounting worth', () => {
    const sums = sumCurrencyMoves([
      { partner_id: 1, currency: 'JPY', balance: '100000', receivable: '100000', document: { amount: '100000', accounting_amount: '620' } },
      { partner_id: 1, currency: 'EUR', committed: '50' },
      { partner_id: 1, currency: 'JPY', balance: '-40000', receivable: '-40000' },
      // An event recorded before documents told their worth: its currency moves, its rate is unknown.
      { partner_id: 1, currency: 'JPY', balance: '5000', document: { amount: '5000', accounting_amount: null } },
      { partner_id: 2, currency: null, balance: '1.5' },
    ]);
    expect(
      sums.map((s) => [
        s.partner_id,
        s.currency,
        s.balance.toFixed(),
        s.receivable.toFixed(),
        s.committed.toFixed(),
        s.documents_total.toFixed(),
        s.documents_accounting.toFixed(),
      ]),
    ).toEqual([
      [1, 'JPY', '65000', '60000', '0', '100000', '620'],
      [1, 'EUR', '0', '0', '50', '0', '0'],
      [2, null, '1.5', '0', '0', '0', '0'],
    ]);
  });

  it('reads the currency and the accounting worth a validation tells', () => {
    const step = ledgerStep(
      envelope('invoicing.invoice.validated', { ...validatedData(7, 3, 'invoiceout', 100000), currency: 'JPY', accounting_total: 620 }),
    );
    expect([step.posts?.currency, step.posts?.accounting_amount]).toEqual(['JPY', '620']);
    expect([validated(4).posts?.currency, validated(4).posts?.accounting_amount]).toEqual([null, null]);
  });

  it("reads the journal's trade move an event tells, on the receivable only on the customer side; older events tell none", () => {
    const validatedKwd = ledgerStep(
      envelope('invoicing.invoice.validated', { ...validatedData(7, 3, 'invoiceout', 16.12), currency: 'KWD', trade_delta: 48.36 }),
    );
    expect(validatedKwd.posts).toMatchObject({
      balance_effect: '16.12',
      accounting_effect: '48.36',
      accounting_receivable_effect: '48.36',
    });
    const bill = ledgerStep(envelope('invoicing.invoice.validated', { ...validatedData(7, 4, 'invoicein', 50), trade_delta: -45 }));
    expect(bill.posts).toMatchObject({ accounting_effect: '-45', accounting_receivable_effect: '0' });
    expect(validated(5).posts).toMatchObject({ accounting_effect: null, accounting_receivable_effect: null });
    const cash = {
      payment_id: 9,
      partner_id: 7,
      direction: 'in',
      side: 'customer',
      amount: 16.12,
      currency: 'KWD',
      payment_date: '2026-03-02',
      journal_entry_id: 1,
    };
    expect(cashStep(envelope('invoicing.payment.created', { ...cash, allocations: [], trade_delta: -12.17 }))?.posts).toMatchObject({
      balance_effect: '-16.12',
      accounting_effect: '-12.17',
      accounting_receivable_effect: '-12.17',
    });
    // An allocation moves no face balance; its own entry's realized difference moves the journal's figure.
    const allocated = cashStep(
      envelope('invoicing.payment.allocated', {
        partner_id: 7,
        payment_id: 9,
        credit_note_id: null,
        credit_note_number: null,
        allocation_date: '2026-03-03',
        allocations: [
          { allocation_id: 4, invoice_id: 3, invoicenumber: 'INV-3', invoicetype: 'invoiceout', amount: 16.12, trade_delta: 36.19 },
        ],
      }),
    );
    expect(allocated?.also?.[0]).toMatchObject({ balance_effect: '0', accounting_effect: '36.19', accounting_receivable_effect: '36.19' });
    const voided = cashStep(
      envelope('invoicing.payment.voided', { ...cash, void_date: '2026-03-04', trade_delta: 12.17, allocations: [] }),
    );
    expect(voided?.posts).toMatchObject({ balance_effect: '16.12', accounting_effect: '12.17' });
    expect(cashStep(envelope('invoicing.payment.created', { ...cash, allocations: [] }))?.posts?.accounting_effect).toBeNull();
  });

  it("sums the journal's moves per currency with the face amounts of the rows that told them", () => {
    const [kwd, eur] = sumCurrencyMoves([
      { partner_id: 1, currency: 'KWD', balance: '16.12', receivable: '16.12', journal: { balance: '48.36', receivable: '48.36' } },
      { partner_id: 1, currency: 'KWD', balance: '5', receivable: '5' },
      { partner_id: 1, currency: 'EUR', balance: '0', receivable: '0', journal: { balance: '-1.25', receivable: '-1.25' } },
    ]);
    expect([kwd?.balance, kwd?.booked_balance, kwd?.booked_face_balance, kwd?.booked_receivable].map((d) => d?.toFixed())).toEqual([
      '21.12',
      '48.36',
      '16.12',
      '48.36',
    ]);
    expect([eur?.booked_balance.toFixed(), eur?.booked_face_balance.toFixed()]).toEqual(['-1.25', '0']);
  });
});
