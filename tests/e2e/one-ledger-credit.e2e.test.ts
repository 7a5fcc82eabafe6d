import { createDb, type Knex } from '@bo/runtime';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

/**
 * Issue 40, case 4: money knows its currency. A EUR customer with a 1,000 EUR credit limit buys in
 * yen; each currency's exposure is weighed in the partner's currency at its document's rate, the
 * refusal names converted figures with their currencies, and the partner's balance is kept per
 * currency with `balance` weighed in EUR (docs/partners.md "Currencies", docs/invoicing.md "Credit limit").
 */
describe('one ledger: credit is weighed in the partner’s currency at each document’s rate', () => {
  let sys: TestSystem;
  let db: Knex;
  let product: number;
  const who = { org_id: '1', userid: 'u1' } as const;
  beforeAll(async () => {
    sys = await startTestSystem();
    db = createDb(sys.databaseUrl, 'invoicing', 1);
    [product] = (await newProducts(sys, ['Consulting'])) as [number];
    await sys.client.partners.organization.set({ ...who, legal_name: 'Euro Books', default_currency: 'EUR' });
    await eventually(async () => {
      const report = await sys.client.invoicing.report.run({ org_id: '1', report: 'aged_receivables' });
      expect('currency' in report && report.currency).toBe('EUR');
    });
  });
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  const balance = async (partnerId: number) => (await sys.client.partners.partner.balance({ org_id: '1', partner_id: partnerId })).partner;
  const sale = async (partnerId: number, price: number, currency: string, exchange_rate?: number) =>
    (
      await sys.client.invoicing.invoice.create({
        ...who,
        invoicetype: 'invoiceout',
        partner: partnerId,
        currency,
        ...(exchange_rate === undefined ? {} : { exchange_rate }),
        line_items: [{ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false }],
      })
    ).invoice.id;
  const status = async (id: number) => (await sys.client.invoicing.invoice.balances({ org_id: '1', id })).invoices[0]!.invoicestatus;

  it('accepts 100,000 JPY at 0.0062 (620 EUR) on a 1,000 EUR limit and refuses what would pass it, naming EUR figures', async () => {
    const { partner } = await sys.client.partners.partner.create({
      ...who,
      partnername: 'Yen Buyer',
      partner_type: 'customer',
      currency: 'EUR',
      credit_limit: 1000,
    });

    // 100,000 JPY is 620.00 EUR at the document's rate: within the limit.
    const yen = await sale(partner.id, 100000, 'JPY', 0.0062);
    const validated = await sys.client.invoicing.invoice.validate({ ...who, id: yen });
    expect([validated.invoice.invoicestatus, validated.invoice.invoicetotal]).toEqual(['open', 100000]);

    // The partner's balance per currency, as it is; the figures beside it weighed in EUR.
    await eventually(async () =>
      expect(await balance(partner.id)).toMatchObject({
        balance: 620,
        receivable: 620,
        committed: 0,
        exposure: 620,
        credit_limit: 1000,
        available_credit: 380,
        currency: 'EUR',
        balances: [{ currency: 'JPY', balance: 100000, receivable: 100000, committed: 0 }],
      }),
    );

    // 620.00 EUR more would make 1,240.00 EUR: refused, naming the figures in EUR, and nothing changes.
    const euros = await sale(partner.id, 620, 'EUR');
    const over = await refusal(sys.client.invoicing.invoice.validate({ ...who, id: euros }));
    expect([over.status, over.code]).toEqual([400, 'credit_limit_exceeded']);
    expect(over.message).toContain(
      'balance 620.00 EUR + committed 0.00 EUR + this invoice 620.00 EUR = 1240.00 EUR, 240.00 EUR above the credit limit 1000.00 EUR',
    );
    expect(await status(euros)).toBe('draft');

    // A yen sale that would pass it is named in EUR with its own amount and rate.
    const tooManyYen = await sale(partner.id, 70000, 'JPY', 0.0062);
    const yenOver = await refusal(sys.client.invoicing.invoice.validate({ ...who, id: tooManyYen }));
    expect(yenOver.message).toContain(
      'this invoice 434.00 EUR (70000 JPY at 0.0062) = 1054.00 EUR, 54.00 EUR above the credit limit 1000.00 EUR',
    );
    expect(await status(tooManyYen)).toBe('draft');

    // Up to the limit exactly, in either currency: 60,000 JPY (372.00 EUR), then 8.00 EUR.
    await sys.client.invoicing.invoice.validate({ ...who, id: await sale(partner.id, 60000, 'JPY', 0.0062) });
    await sys.client.invoicing.invoice.validate({ ...who, id: await sale(partner.id, 8, 'EUR') });
    await eventually(async () =>
      expect(await balance(partner.id)).toMatchObject({
        balance: 1000,
        receivable: 1000,
        available_credit: 0,
        balances: [
          { currency: 'EUR', balance: 8, receivable: 8, committed: 0 },
          { currency: 'JPY', balance: 160000, receivable: 160000, committed: 0 },
        ],
      }),
    );
    // And not a cent beyond.
    const cent = await refusal(sys.client.invoicing.invoice.validate({ ...who, id: await sale(partner.id, 0.01, 'EUR') }));
    expect(cent.message).toContain('= 1000.01 EUR, 0.01 EUR above the credit limit 1000.00 EUR');

    // 100,000 JPY paid on the first yen invoice (at 0.0065 that day): the yen balance falls by it, and
    // what is left of it is weighed at the rate its documents were posted at, so 380 EUR are owed.
    await sys.client.invoicing.payment.create({
      ...who,
      partner: partner.id,
      amount: 100000,
      currency: 'JPY',
      direction: 'in',
      exchange_rate: 0.0065,
      allocations: [{ invoice_id: yen, amount: 100000 }],
    });
    await eventually(async () =>
      expect(await balance(partner.id)).toMatchObject({
        balance: 380,
        receivable: 380,
        available_credit: 620,
        balances: [
          { currency: 'EUR', balance: 8, receivable: 8, committed: 0 },
          { currency: 'JPY', balance: 60000, receivable: 60000, committed: 0 },
        ],
      }),
    );
    // The sale refused for 54.00 EUR now fits.
    await sys.client.invoicing.invoice.validate({ ...who, id: tooManyYen });
  });

  it("weighs a limit in another currency than the organization's through its rate, and names that rate when it has none", async () => {
    const { partner } = await sys.client.partners.partner.create({
      ...who,
      partnername: 'Dollar Buyer',
      partner_type: 'customer',
      currency: 'USD',
      credit_limit: 1000,
    });
    // 100,000 JPY is 620.00 EUR; weighing it in USD needs the organization's USD rate, which it has not.
    const yen = await sale(partner.id, 100000, 'JPY', 0.0062);
    const unknown = await refusal(sys.client.invoicing.invoice.validate({ ...who, id: yen }));
    expect([unknown.status, unknown.code, unknown.errors?.[0]?.field]).toEqual([400, 'validation_failed', 'exchange_rate']);
    expect(unknown.message).toContain('The credit limit is in USD: no rate of USD to EUR');
    expect(await status(yen)).toBe('draft');

    // At 0.80 EUR per dollar it is 775.00 USD of a 1,000.00 USD limit.
    const today = new Date().toISOString().slice(0, 10);
    await sys.client.invoicing.exchange_rate.set({ ...who, action: 'set', currency: 'USD', date: today, rate: '0.8' });
    expect((await sys.client.invoicing.invoice.validate({ ...who, id: yen })).invoice.invoicestatus).toBe('open');
    const more = await refusal(sys.client.invoicing.invoice.validate({ ...who, id: await sale(partner.id, 40000, 'JPY', 0.0062) }));
    expect(more.message).toContain(
      'balance 775.00 USD + committed 0.00 USD + this invoice 310.00 USD (40000 JPY at 0.0062) = 1085.00 USD, 85.00 USD above the credit limit 1000.00 USD',
    );
  });

  it('moves the balance by what the journal posts to the receivable: a KWD invoice at one rate, its payment at another, allocated, refunded', async () => {
    const { partner } = await sys.client.partners.partner.create({ ...who, partnername: 'Dinar Buyer', partner_type: 'customer' });
    /** The journal's receivable for the partner's documents and payments, in EUR. */
    const journal = async () => {
      const { rows } = await db.raw<{ rows: Array<{ receivable: string }> }>(
        `select coalesce(sum(l.debit - l.credit), 0)::numeric(18, 2)::text as receivable
           from journal_lines l join journal_entries e on e.id = l.entry_id
          where e.org_id = 1 and l.account = '1200 Accounts Receivable'
            and (e.invoice_id in (select id from invoices where partner_id = ?) or e.payment_id in (select id from payments where partner_id = ?))`,
        [partner.id, partner.id],
      );
      return Number(rows[0]!.receivable);
    };
    /** The partner view (in EUR, the organization's: the partner names no currency) agrees with the journal, the KWD balance as it is. */
    const agrees = async (receivable: number, kwd: number) => {
      expect(await journal()).toBe(receivable);
      await eventually(async () =>
        expect(await balance(partner.id)).toMatchObject({
          balance: receivable,
          receivable,
          balances: [{ currency: 'KWD', balance: kwd, receivable: kwd, committed: 0 }],
        }),
      );
    };

    // 16.120 KWD at 2.999994: 48.36 EUR on the receivable.
    const invoice = await sale(partner.id, 16.12, 'KWD', 2.999994);
    await sys.client.invoicing.invoice.validate({ ...who, id: invoice });
    await agrees(48.36, 16.12);

    // 16.120 KWD received at 0.755127 and left unallocated: 12.17 EUR of credit on the receivable, so
    // 36.19 EUR are owed though no KWD are (the documents' rate would say 0.00).
    const { payment } = await sys.client.invoicing.payment.create({
      ...who,
      partner: partner.id,
      amount: 16.12,
      currency: 'KWD',
      direction: 'in',
      exchange_rate: 0.755127,
    });
    await agrees(36.19, 0);

    // 10.000 KWD of it allocated to the invoice: the credit used is worth 7.55 EUR, the invoice cleared
    // 30.00 EUR; the receivable moves by the realized difference, −22.45 EUR, with no KWD moving.
    await sys.client.invoicing.payment.allocate({ ...who, payment_id: payment.id, allocations: [{ invoice_id: invoice, amount: 10 }] });
    await agrees(13.74, 0);

    // The 6.120 KWD of credit left paid back at 0.8 (4.90 EUR out of the bank): the credit leaves the
    // receivable at what it booked, 4.62 EUR, the rest is realized; what is owed is the invoice's rest.
    await sys.client.invoicing.payment.refund({ ...who, payment_id: payment.id, amount: 6.12, exchange_rate: 0.8 });
    await agrees(18.36, 6.12);
  });
});
