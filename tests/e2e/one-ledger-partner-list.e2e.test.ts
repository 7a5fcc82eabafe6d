import { invoicingSuite, ok } from '../support/invoicing';
import { eventually } from '../support/system';

const RECEIVABLE = '1200 Accounts Receivable';
const PAYABLE = '2000 Accounts Payable';

/**
 * The partner list's `balance` is the balance view's (issue 40; docs/partners.md "Currencies"),
 * through the gateway, with EUR books and USD documents for partners that have no currency of their
 * own: each figure a partner shows, in the list, the balance view and the journal's trade lines,
 * is the one accounting-currency amount, after an invoice, a credit note settling it, a payment
 * allocated at another rate (a realized difference), unallocated cash, and on the vendor side a bill
 * and a payment out.
 */
describe("one ledger: the partner list's balance is the balance view's", () => {
  const suite = invoicingSuite('Export consulting');
  const { post, payments } = suite;

  beforeAll(async () => {
    await ok(post('/organization/setprofile', { default_currency: 'EUR' }));
    await suite.settingsReach((row) => expect(row?.default_currency).toBe('EUR'));
  });

  async function partner(name: string, partner_type: 'customer' | 'vendor'): Promise<number> {
    const id = (await ok(post('/crm/editpatner', { action: 'create', partnername: name, partner_type }))).body.partner.id;
    await eventually(async () => expect(await suite.invoicingDb('partner_directory').where({ id }).first()).toBeDefined());
    return id;
  }
  async function issued(
    partnerId: number,
    type: 'invoiceout' | 'creditout' | 'invoicein',
    price: number,
    rate: string,
    credits?: number,
  ): Promise<number> {
    const inv = (
      await ok(
        post('/invoicing/invoice/new', {
          invoicetype: type,
          partner: partnerId,
          currency: 'USD',
          exchange_rate: rate,
          invoicedatetime: '2026-05-04T10:00:00',
          invoicedue: '2026-05-04',
          ...(credits === undefined ? {} : { sourcetype: 'invoice', sourceid: String(credits), restock: false }),
          line_items: [{ product_id: suite.product, quantity: 1, price, tax_rate: 0, tax_included: false }],
        }),
      )
    ).body.invoice;
    await ok(post('/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
    return inv.id;
  }
  /** The partner's trade lines in the journal, in EUR, debit minus credit. */
  async function journal(partnerId: number, account: string): Promise<string> {
    const { rows } = await suite.invoicingDb.raw(
      `select coalesce(sum(l.debit - l.credit), 0)::text as moved from journal_lines l join journal_entries e on e.id = l.entry_id
        where l.account = ? and (e.invoice_id in (select id from invoices where partner_id = ?)
                                 or e.payment_id in (select id from payments where partner_id = ?))`,
      [account, partnerId, partnerId],
    );
    return Number(rows[0].moved).toFixed(2);
  }
  /** The partner's `balance` and `committed` as the list, the balance view and the journal tell them, once the ledger has the events. */
  async function figures(partnerId: number, name: string, account: string) {
    await suite.sys.eventsSettled();
    const listed = (await ok(post('/crm/partners', { search: name }))).body.partners.find((p: { id: number }) => p.id === partnerId);
    const view = (await ok(post('/crm/partners', { partner_id: partnerId }))).body.partner;
    return {
      list: Number(listed.balance).toFixed(2),
      view: Number(view.balance).toFixed(2),
      journal: await journal(partnerId, account),
      committed: [listed.committed, view.committed],
    };
  }
  const agreeing = (eur: string) => ({ list: eur, view: eur, journal: eur, committed: [0, 0] });

  it('a USD invoice, its credit note, a payment at another rate and unallocated cash: the list, the view and the journal say the same EUR', async () => {
    const acme = await partner('Acme Trading', 'customer');
    // 100.00 USD at 0.90: 90.00 EUR owed, where the face amount is 100.
    const invoice = await issued(acme, 'invoiceout', 100, '0.9');
    expect(await figures(acme, 'Acme Trading', RECEIVABLE)).toEqual(agreeing('90.00'));

    // A 20.00 USD credit note at 0.95 (19.00 EUR) settles its invoice first: what it realizes stays in the journal's figure.
    await issued(acme, 'creditout', 20, '0.95', invoice);
    const afterCredit = await figures(acme, 'Acme Trading', RECEIVABLE);
    expect(afterCredit).toEqual(agreeing(afterCredit.journal));
    expect(afterCredit.journal).not.toBe('80.00');

    // 50.00 USD at 0.92 allocated to the invoice, then 10.00 USD at 0.80 on account.
    await ok(
      payments({
        action: 'create',
        partner: acme,
        amount: 50,
        currency: 'USD',
        direction: 'in',
        payment_date: '2026-05-20',
        exchange_rate: '0.92',
        allocations: [{ invoice_id: invoice, amount: 50 }],
      }),
    );
    const afterPayment = await figures(acme, 'Acme Trading', RECEIVABLE);
    expect(afterPayment).toEqual(agreeing(afterPayment.journal));
    await ok(
      payments({
        action: 'create',
        partner: acme,
        amount: 10,
        currency: 'USD',
        direction: 'in',
        payment_date: '2026-05-21',
        exchange_rate: '0.8',
      }),
    );
    const afterCash = await figures(acme, 'Acme Trading', RECEIVABLE);
    expect(afterCash).toEqual(agreeing(afterCash.journal));
    expect(Number(afterCash.journal)).toBeCloseTo(Number(afterPayment.journal) - 8, 2);

    // Given a currency of its own, the partner's figures are weighed in it, in the list as in the view: its USD at face value.
    await ok(post('/crm/editpatner', { action: 'edit', partner_id: acme, currency: 'USD' }));
    const inUsd = await figures(acme, 'Acme Trading', RECEIVABLE);
    expect(inUsd.list).toBe(inUsd.view);
    expect(inUsd.view).toBe((100 - 20 - 50 - 10).toFixed(2));
  });

  it('a USD bill and a payment out at another rate: the vendor’s list balance is the view’s and the journal’s', async () => {
    const globex = await partner('Globex Supplies', 'vendor');
    const bill = await issued(globex, 'invoicein', 200, '0.9');
    expect(await figures(globex, 'Globex Supplies', PAYABLE)).toEqual(agreeing('-180.00'));
    await ok(
      payments({
        action: 'create',
        partner: globex,
        amount: 100,
        currency: 'USD',
        direction: 'out',
        payment_date: '2026-05-20',
        exchange_rate: '0.95',
        allocations: [{ invoice_id: bill, amount: 100 }],
      }),
    );
    const paid = await figures(globex, 'Globex Supplies', PAYABLE);
    expect(paid).toEqual(agreeing(paid.journal));
    expect(paid.journal).toBe('-90.00');
  });
});
