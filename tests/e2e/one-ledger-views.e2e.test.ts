import { createDb, type Knex } from '@bo/runtime';
import { newProducts } from '../support/catalog';
import { ok } from '../support/invoicing';
import { eventually, startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

const RECEIVABLE = '1200 Accounts Receivable';

/**
 * One ledger, one truth (issue 40; docs/invoicing.md "One ledger"), through the gateway over
 * PostgreSQL and RabbitMQ, with EUR books and USD documents: the journal's receivable of a partner,
 * its aged receivables and its statement's closing balance are one figure to the cent, and a
 * realized exchange difference is a statement line of its own.
 */
describe('one ledger: journal, aged receivables and statements agree', () => {
  let sys: TestSystem;
  let db: Knex;
  let product: number;
  const post = (path: string, body: Record<string, unknown>) => sys.post(path, { org_id: 1, userid: 'e2e', ...body });

  beforeAll(async () => {
    sys = await startTestSystem();
    db = createDb(sys.databaseUrl, 'invoicing', 2);
    [product] = (await newProducts(sys, ['Export consulting'])) as [number];
    await ok(post('/organization/setprofile', { default_currency: 'EUR' }));
    await eventually(async () => expect((await db('organization_settings').where({ org_id: 1 }).first())?.default_currency).toBe('EUR'));
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  async function customer(name: string): Promise<number> {
    const id = (await ok(post('/crm/editpatner', { action: 'create', partnername: name, partner_type: 'customer', currency: 'USD' }))).body
      .partner.id;
    await eventually(async () => expect(await db('partner_directory').where({ id }).first()).toBeDefined());
    return id;
  }
  async function issued(partner: number, price: number, rate: string): Promise<number> {
    const inv = (
      await ok(
        post('/invoicing/invoice/new', {
          invoicetype: 'invoiceout',
          partner,
          currency: 'USD',
          exchange_rate: rate,
          invoicedatetime: '2026-05-04T10:00:00',
          invoicedue: '2026-05-04',
          line_items: [{ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false }],
        }),
      )
    ).body.invoice;
    await ok(post('/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
    return inv.id;
  }
  /** The partner's receivable in the journal, in EUR, up to a day: the receivable lines of its documents' and payments' entries. */
  async function journalReceivable(partner: number, asOf: string): Promise<number> {
    const { rows } = await db.raw(
      `select coalesce(sum(l.debit - l.credit), 0)::text as receivable from journal_lines l join journal_entries e on e.id = l.entry_id
        where l.account = ? and e.journaldate <= ?
          and (e.invoice_id in (select id from invoices where partner_id = ?) or e.payment_id in (select id from payments where partner_id = ?))`,
      [RECEIVABLE, asOf, partner, partner],
    );
    return Number(rows[0].receivable);
  }
  const aged = async (asOf: string) => (await ok(post('/invoicing/reports', { report: 'aged_receivables', as_of: asOf }))).body;
  const statement = async (partner: number, dateTo: string) =>
    (await ok(post('/invoicing/reports', { report: 'statement', partner, date_from: '2026-05-01', date_to: dateTo }))).body;
  const agedTotalOf = (report: Record<string, any>, partner: number): number =>
    report.partners.find((p: { partner: number }) => p.partner === partner)?.total ?? 0;

  it('case 1: a 100 USD invoice at 0.90 paid with 100 USD at 0.95 owes 0 everywhere, the 5.00 gain a statement line of its own', async () => {
    const acme = await customer('Acme USA');
    const invoice = await issued(acme, 100, '0.9');
    const paid: ApiResponse = await ok(
      post('/invoicing/payments', {
        action: 'create',
        partner: acme,
        amount: 100,
        currency: 'USD',
        direction: 'in',
        payment_date: '2026-05-20',
        exchange_rate: '0.95',
        allocations: [{ invoice_id: invoice, amount: 100 }],
      }),
    );
    const payment = paid.body.payment;

    expect(await journalReceivable(acme, '2026-05-31')).toBe(0);
    expect(agedTotalOf(await aged('2026-05-31'), acme)).toBe(0);
    const s = await statement(acme, '2026-05-31');
    expect(s.lines.map((l: Record<string, unknown>) => [l.date, l.kind, l.debit, l.credit, l.balance])).toEqual([
      ['2026-05-04', 'invoice', 90, 0, 90],
      ['2026-05-20', 'payment', 0, 95, -5],
      ['2026-05-20', 'allocation', 0, 0, -5],
      ['2026-05-20', 'exchange_difference', 5, 0, 0],
    ]);
    expect(s.lines[3]).toMatchObject({ currency: 'EUR', amount_currency: 5, payment_id: payment.id, invoice_id: invoice });
    expect(s.closing_balance).toBe(0);

    // Before the payment, the three agree on what is owed.
    expect(await journalReceivable(acme, '2026-05-10')).toBe(90);
    expect(agedTotalOf(await aged('2026-05-10'), acme)).toBe(90);
    expect((await statement(acme, '2026-05-10')).closing_balance).toBe(90);
    // The allocation names the entry that posted it: the payment's own.
    expect(payment.allocations).toEqual([expect.objectContaining({ invoice_id: invoice, journal_entry_id: payment.journal_entry_id })]);
  });

  it('case 11: a partly paid USD invoice is aged at what it booked less the worth of what settled it, the journal to the cent', async () => {
    const globex = await customer('Globex USA');
    // 100.00 USD at 0.9235 booked 92.35 EUR; 50.00 USD at the same rate is worth 46.18 (46.175 rounded), leaving 46.17,
    // where the 50.00 USD still open converted on its own would say 46.18.
    const invoice = await issued(globex, 100, '0.9235');
    await ok(
      post('/invoicing/invoice/new', {
        register_payment: true,
        id: invoice,
        amount: 50,
        payment_date: '2026-05-20',
        exchange_rate: 0.9235,
      }),
    );
    expect(await journalReceivable(globex, '2026-05-31')).toBe(46.17);
    const report = await aged('2026-05-31');
    const row = report.partners.find((p: { partner: number }) => p.partner === globex);
    expect(row.documents).toEqual([expect.objectContaining({ invoice_id: invoice, open_amount_currency: 50, open_amount: 46.17 })]);
    expect(row.total).toBe(46.17);
    expect((await statement(globex, '2026-05-31')).closing_balance).toBe(46.17);

    // The rest of it, 50.00 USD more at the same rate, takes exactly what is left: nothing is open, in USD or in EUR.
    await ok(
      post('/invoicing/invoice/new', {
        register_payment: true,
        id: invoice,
        amount: 50,
        payment_date: '2026-05-25',
        exchange_rate: 0.9235,
      }),
    );
    const bank = await db('journal_lines as l')
      .join('journal_entries as e', 'e.id', 'l.entry_id')
      .join('payments as p', 'p.id', 'e.payment_id')
      .where({ 'p.partner_id': globex, 'l.account': 'Bank' })
      .sum({ bank: 'l.debit' });
    // Each payment's money is worth 46.18; the document booked 92.35: the last one realizes the cent.
    expect(Number(bank[0]?.bank)).toBe(92.36);
    expect(await journalReceivable(globex, '2026-05-31')).toBe(0);
    expect(agedTotalOf(await aged('2026-05-31'), globex)).toBe(0);
    const s = await statement(globex, '2026-05-31');
    expect(s.closing_balance).toBe(0);
    expect(
      s.lines.filter((l: { kind: string }) => l.kind === 'exchange_difference').map((l: Record<string, unknown>) => [l.debit, l.credit]),
    ).toEqual([[0.01, 0]]);
  });
});
