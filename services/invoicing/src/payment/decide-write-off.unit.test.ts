import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import { decideWriteOff, decideWriteOffPlan, type WriteOffLoad, type WriteOffState } from './decide-write-off';

/** An open customer invoice of 121.00 dated 1 November, 21.00 of it paid, posted as it is (no conversion). */
const open: WriteOffState = {
  invoice: {
    id: 9,
    invoicenumber: 'INV-0009',
    invoicetype: 'invoiceout',
    partner_id: 4,
    invoicestatus: 'open',
    invoicedue: '2026-12-01',
    invoicetotal: '121.00',
    amount_paid: '21.00',
    written_off_amount: '0.00',
    currency: 'EUR',
    invoicedatetime: new Date('2026-11-01T09:00:00Z'),
    tradeaccount: null,
    chartofaccounts: null,
    invoicejournal: null,
  },
  today: '2026-11-28',
  booked: new Map(),
};

const lines = (plan: ReturnType<typeof decideWriteOff>) =>
  plan.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2), Boolean(l.trade)]);

describe('deciding a write-off', () => {
  it('given an open invoice partly paid, when written off, then what is due becomes a bad debt against its receivable', () => {
    const plan = decideWriteOff(open, '2026-11-28');
    expect(plan.amount).toBe('100.00');
    expect(lines(plan)).toEqual([
      ['6800 Bad Debts', '100.00', '0.00', false],
      ['1200 Accounts Receivable', '0.00', '100.00', true],
    ]);
    expect(plan.entry).toEqual({
      invoice_id: 9,
      payment_id: null,
      kind: 'write_off',
      journalname: 'Sales Journal',
      journaldate: '2026-11-28',
      reference: 'Write-off INV-0009',
    });
  });

  it('given an invoice booked at a rate, when written off, then the bad debt is what the rest is worth on the books', () => {
    // 121.00 booked as 242.00 in the accounting currency: the 21.00 paid was worth 42.00, the rest 200.00.
    const booked = new Map([[9, { amount: '121.00', booked: '242.00', places: 2 }]]);
    const plan = decideWriteOff({ ...open, booked }, '2026-11-28');
    expect(plan.amount).toBe('100.00');
    expect(lines(plan)).toEqual([
      ['6800 Bad Debts', '200.00', '0.00', false],
      ['1200 Accounts Receivable', '0.00', '200.00', true],
    ]);
  });

  it('given its own trade account and journal, when written off, then the entry uses them', () => {
    const plan = decideWriteOff(
      { ...open, invoice: { ...open.invoice, tradeaccount: '1210 Export Receivables', invoicejournal: 'Export' } },
      '2026-11-28',
    );
    expect(plan.lines[1]?.account).toBe('1210 Export Receivables');
    expect(plan.entry.journalname).toBe('Export');
  });

  it('given an overdue invoice, when written off, then it is', () => {
    expect(decideWriteOff({ ...open, today: '2026-12-15' }, '2026-12-15').amount).toBe('100.00');
  });

  it.each([
    ['a draft', { invoicestatus: 'draft' as const }, 'is draft'],
    ['a paid invoice', { invoicestatus: 'paid' as const }, 'is paid'],
    ['a vendor bill', { invoicetype: 'invoicein' as const }, 'only a customer invoice'],
    ['an invoice with nothing due', { amount_paid: '121.00' }, 'nothing is due'],
  ])('given %s, when written off, then it is refused as an invalid state', (_, change, reason) => {
    expect(() => decideWriteOff({ ...open, invoice: { ...open.invoice, ...change } }, '2026-11-28')).toThrow(
      expect.objectContaining({ refusal: 'payment.writeOffRefused', code: 'invalid_state', message: expect.stringContaining(reason) }),
    );
  });

  it('given a date before the invoice, when written off, then write_off_date is refused', () => {
    expect(() => decideWriteOff(open, '2026-10-31')).toThrow(
      expect.objectContaining({
        refusal: 'payment.datedBeforeEarlier',
        code: 'validation_failed',
        errors: [{ field: 'write_off_date', message: expect.stringContaining('date it on or after 2026-11-01') }],
      }),
    );
  });

  it('given a paid invoice dated too early, when written off, then its state is refused first', () => {
    expect(() => decideWriteOff({ ...open, invoice: { ...open.invoice, invoicestatus: 'paid' } }, '2026-10-31')).toThrow(
      expect.objectContaining({ code: 'invalid_state' }),
    );
  });
});

describe('deciding a write-off on what its load read', () => {
  /** INV-0007 as the load reads it, in an organization on EUR whose books are locked up to 31 October. */
  const loaded: WriteOffLoad = {
    settings: { lock_date: '2026-10-31', time_zone: 'Pacific/Auckland', default_currency: 'EUR' },
    invoice: openInvoiceRow(),
    booked: null,
    entryId: 501,
    now: new Date('2026-11-28T10:00:00Z'),
  };
  const ctx = { orgId: 1, instant: new Date('2026-11-28T12:00:00Z') };

  it("given an open invoice, when written off with no date, then it is dated the organization's today and leaves the invoice one version on", () => {
    // Noon UTC on 28 November is already 29 November in Auckland.
    const plan = decideWriteOffPlan(loaded, { id: 7, reason: 'Customer insolvent' }, ctx);
    expect(plan.entry).toMatchObject({ org_id: 1, invoice_id: 7, kind: 'write_off', journaldate: '2026-11-29' });
    expect(plan.entryId).toBe(501);
    expect(plan.invoice).toMatchObject({ invoicestatus: 'written_off', written_off_amount: '100.00', version: 4, updated_at: loaded.now });
    expect(plan.event).toMatchObject({
      invoice_id: 7,
      amount: 100,
      write_off_date: '2026-11-29',
      reason: 'Customer insolvent',
      journal_entry_id: 501,
      trade_delta: -100,
      version: 4,
    });
    expect(plan.reply.invoice).toMatchObject({ invoicestatus: 'written_off', written_off_amount: 100, journal_entry_id: 501 });
  });

  it('given a date on or before the lock date, when written off, then write_off_date is refused before anything else is judged', () => {
    // Even with no invoice to write off: closed books answer first.
    for (const load of [loaded, { ...loaded, invoice: null }])
      expect(() => decideWriteOffPlan(load, { id: 7, write_off_date: '2026-10-31' }, ctx)).toThrow(
        expect.objectContaining({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'write_off_date' })] }),
      );
  });

  it('given no invoice of that id, when written off, then it is not found', () => {
    expect(() => decideWriteOffPlan({ ...loaded, invoice: null }, { id: 7 }, ctx)).toThrow(
      expect.objectContaining({ code: 'not_found', message: 'Invoice 7 not found' }),
    );
  });

  it('given an invoice booked at a rate, when written off, then the bad debt is what its entry booked for the rest', () => {
    const plan = decideWriteOffPlan({ ...loaded, invoice: openInvoiceRow({ exchange_rate: '2' }), booked: '242.00' }, { id: 7 }, ctx);
    expect(plan.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['6800 Bad Debts', '200.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '200.00'],
    ]);
  });
});
