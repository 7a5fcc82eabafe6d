import * as testing from '@bo/testkit';
import { loadHistory } from '../src/ledger/history';
import { Ledger } from '../src/ledger/ledger';
import { addDays } from '../src/domain/recurrence';
import { agedBalances, statementOf } from '../src/ledger/views';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

const partnersTable: FakePartner[] = [
  { org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'USD' } },
  { org: 1, id: 11, partnername: 'Globex', credit_limit: 0, balance: 0, record: { currency: 'USD' } },
];
const line = (price: number) => ({ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false });

/**
 * Aged balances and statements read only the items that can be open on their day (ledger/history.ts
 * `openOn`; a statement: the day before its period), not the whole history: over a history of USD documents in EUR books with part payments, credit used
 * later, refunds, a void and a write-off, dated across two months, every day's aged balances equal
 * those of the full replay, every period's statement too, and each partner's total equals the
 * journal's receivable lines up to that day.
 */
describe('invoicing: aged balances and statements from the open items equal the full replay', () => {
  let svc: testing.TestService;

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners(partnersTable));
    await svc.db('organization_settings').insert({ org_id: 1, default_currency: 'EUR', version: 1 });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const call = async (operation: string, payload: Record<string, unknown>) =>
    body(await svc.call(operation, { userid: '5', ...payload }, 1));
  async function issued(partner: number, price: number, date: string, rate: string): Promise<number> {
    const inv = (
      await call('invoicing.invoice.create', {
        invoicetype: 'invoiceout',
        partner,
        currency: 'USD',
        exchange_rate: rate,
        invoicedatetime: `${date}T09:00:00`,
        invoicedue: date,
        line_items: [line(price)],
      })
    ).invoice;
    await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id });
    return inv.id as number;
  }
  const pay = async (partner: number, amount: number, date: string, rate: string, allocations: unknown[] = []) =>
    (
      await call('invoicing.payment.create', {
        action: 'create',
        partner,
        amount,
        currency: 'USD',
        direction: 'in',
        payment_date: date,
        exchange_rate: rate,
        allocations,
      })
    ).payment.id as number;
  async function journalReceivable(partner: number, asOf: string): Promise<number> {
    const { rows } = await svc.db.raw(
      `select coalesce(sum(l.debit - l.credit), 0)::text as r from journal_lines l join journal_entries e on e.id = l.entry_id
        where l.account = '1200 Accounts Receivable' and e.journaldate <= ?
          and (e.invoice_id in (select id from invoices where partner_id = ?) or e.payment_id in (select id from payments where partner_id = ?))`,
      [asOf, partner, partner],
    );
    return Number(rows[0].r);
  }

  it('answers every day as the full replay does, and as the journal does', async () => {
    const a = await issued(10, 100, '2026-01-05', '0.9235');
    const b = await issued(10, 80.01, '2026-01-10', '0.9111');
    const c = await issued(11, 45.5, '2026-01-12', '0.8765');
    const d = await issued(11, 60, '2026-01-15', '0.95');
    await pay(10, 50, '2026-01-20', '0.93', [{ invoice_id: a, amount: 50 }]);
    const credit = await pay(10, 70, '2026-01-25', '0.91');
    await call('invoicing.payment.allocate', {
      action: 'allocate',
      payment_id: credit,
      allocation_date: '2026-02-03',
      allocations: [
        { invoice_id: a, amount: 50 },
        { invoice_id: b, amount: 13.33 },
      ],
    });
    await call('invoicing.payment.refund', {
      action: 'refund',
      payment_id: credit,
      amount: 6.67,
      refund_date: '2026-02-10',
      exchange_rate: '0.97',
    });
    const voided = await pay(11, 45.5, '2026-01-28', '0.88', [{ invoice_id: c, amount: 45.5 }]);
    await call('invoicing.payment.void', { action: 'void', payment_id: voided, void_date: '2026-02-05' });
    await pay(11, 20, '2026-02-01', '0.96', [{ invoice_id: d, amount: 20 }]);
    await call('invoicing.invoice.write_off', { id: d, write_off: true, write_off_date: '2026-02-20' });

    const full = new Ledger(await loadHistory(svc.db, 1), 2);
    const days = [
      '2026-01-04',
      '2026-01-05',
      '2026-01-19',
      '2026-01-20',
      '2026-01-27',
      '2026-02-01',
      '2026-02-04',
      '2026-02-06',
      '2026-02-10',
    ];
    for (const day of [...days, '2026-02-15', '2026-02-20', '2026-03-31']) {
      const open = new Ledger(await loadHistory(svc.db, 1, { openOn: day }), 2);
      const expected = agedBalances(full, 'customer', day, new Map());
      expect({ day, ...agedBalances(open, 'customer', day, new Map()) }).toEqual({ day, ...expected });
      for (const partner of [10, 11]) {
        const total = expected.partners.find((p) => p.partner === partner)?.total ?? 0;
        expect({ day, partner, total }).toEqual({ day, partner, total: await journalReceivable(partner, day) });
      }
    }
    // A statement reads the items open on the day before its period, and states what the full replay does.
    const periods = [
      ['2026-01-01', '2026-01-31'],
      ['2026-02-01', '2026-02-28'],
      ['2026-01-21', '2026-02-05'],
      ['2026-02-06', '2026-03-31'],
    ] as const;
    for (const [from, to] of periods) {
      for (const partner of [10, 11]) {
        const open = new Ledger(await loadHistory(svc.db, 1, { partner, openOn: addDays(from, -1) }), 2);
        const expected = statementOf(full, partner, 'customer', from, to, 'EUR');
        expect({ from, partner, ...statementOf(open, partner, 'customer', from, to, 'EUR') }).toEqual({ from, partner, ...expected });
        expect(expected.closing_balance).toBe(await journalReceivable(partner, to));
      }
    }
    // Today (after everything) only what is open is read: c (reopened by the void), b's rest and nothing of a.
    const now = await loadHistory(svc.db, 1, { openOn: '2026-03-31' });
    expect(now.documents.map((doc) => doc.id).sort((x, y) => x - y)).toEqual([b, c].sort((x, y) => x - y));
  });
});
