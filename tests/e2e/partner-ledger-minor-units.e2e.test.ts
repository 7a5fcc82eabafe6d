import type { invoicing } from '@bo/contracts';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

function aged(reply: invoicing.RunReportReply): invoicing.AgedReportReply {
  if (!('partners' in reply)) throw new Error(`expected an aged report, got ${reply.report}`);
  return reply;
}
function statement(reply: invoicing.RunReportReply): invoicing.StatementReportReply {
  if (!('closing_balance' in reply)) throw new Error(`expected a statement, got ${reply.report}`);
  return reply;
}

/**
 * The partners ledger keeps its amounts in the documents' currency, to that currency's minor unit
 * (docs/invoicing.md "Partners"): in an organization keeping its books in KWD (3 decimals), a
 * customer's balance, receivable and committed amount, through the gateway with the typed client,
 * are to the fils what invoicing says it owes: its invoices' due amounts, its aged receivables total
 * and its statement's closing balance.
 */
describe('the partners ledger keeps three-decimal amounts to the fils', () => {
  let sys: TestSystem;
  let product: number;
  const who = { org_id: '1', userid: 'u1' } as const;
  beforeAll(async () => {
    sys = await startTestSystem();
    [product] = (await newProducts(sys, ['Consulting'])) as [number];
    await sys.client.partners.organization.set({ ...who, legal_name: 'Gulf Books', default_currency: 'KWD' });
    await eventually(async () =>
      expect(aged(await sys.client.invoicing.report.run({ org_id: '1', report: 'aged_receivables' })).currency).toBe('KWD'),
    );
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const line = (price: number) => ({ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false });
  const balance = async (partnerId: number) => (await sys.client.partners.partner.balance({ org_id: '1', partner_id: partnerId })).partner;

  it("a KWD customer's balance, receivable and committed are the invoicing figures to the fils", async () => {
    const { partner } = await sys.client.partners.partner.create({
      ...who,
      partnername: 'Dinar Works',
      partner_type: 'customer',
      currency: 'KWD',
    });
    // A quotation of 10.005 converted: committed to the fils until its invoice is validated.
    const { quotation } = await sys.client.sales.quotation.create({
      ...who,
      partner: String(partner.id),
      quotation_type: 'quotation',
      quotation_status: 'draft',
      quotation_date: `${today}T10:00:00`,
      valid_until: later,
      currency: 'KWD',
      line_items: [line(10.005)],
    });
    const converted = (await sys.client.sales.quotation.convert({ ...who, quotation_id: quotation.id, invoicetype: 'invoiceout' })).invoice;
    expect(converted.invoicetotal).toBe(10.005);
    await eventually(async () => expect(await balance(partner.id)).toMatchObject({ balance: 0, committed: 10.005, exposure: 10.005 }));

    await sys.client.invoicing.invoice.validate({ ...who, id: converted.id });
    const second = (
      await sys.client.invoicing.invoice.create({
        ...who,
        invoicetype: 'invoiceout',
        partner: partner.id,
        currency: 'KWD',
        line_items: [line(2.222)],
      })
    ).invoice;
    await sys.client.invoicing.invoice.validate({ ...who, id: second.id });
    // 3.001 paid on the first, 0.111 written off the second after 2.111 paid: every step in fils.
    await sys.client.invoicing.payment.create({
      ...who,
      partner: partner.id,
      amount: 5.112,
      currency: 'KWD',
      direction: 'in',
      allocations: [
        { invoice_id: converted.id, amount: 3.001 },
        { invoice_id: second.id, amount: 2.111 },
      ],
    });
    await sys.client.invoicing.invoice.writeOff({ ...who, id: second.id });

    const due = (await sys.client.invoicing.invoice.balances({ org_id: '1', id: converted.id })).invoices[0]!.due_amount;
    expect(due).toBe(7.004);
    const receivables = aged(await sys.client.invoicing.report.run({ org_id: '1', report: 'aged_receivables' }));
    expect(receivables.partners.find((p) => p.partner === partner.id)?.total).toBe(7.004);
    const account = statement(
      await sys.client.invoicing.report.run({
        org_id: '1',
        report: 'statement',
        partner: partner.id,
        date_from: today,
        date_to: today,
      }),
    );
    expect(account.closing_balance).toBe(7.004);
    // The ledger follows by events; once caught up it says the same, to the fils.
    await eventually(async () =>
      expect(await balance(partner.id)).toMatchObject({ balance: 7.004, receivable: 7.004, committed: 0, exposure: 7.004 }),
    );
    const view = await sys.client.partners.partner.balance({ org_id: '1', partner_id: partner.id, include_transactions: true });
    expect(view.transactions?.filter((t) => t.type === 'invoice').map((t) => [t.document_number, t.amount, t.paid, t.due])).toEqual([
      [converted.invoicenumber, 10.005, 3.001, 7.004],
      [second.invoicenumber, 2.222, 2.222, 0],
    ]);
  });

  it('takes a credit limit to the fils in a KWD partner, refuses one finer than its currency, and weighs a sale against it exactly', async () => {
    const create = (over: Record<string, unknown>) =>
      sys.client.partners.partner.create({ ...who, partnername: 'Limited', partner_type: 'customer', ...over });
    // In KWD, the partner's own or the organization's default: to the fils.
    const kwd = (await create({ currency: 'KWD', credit_limit: 10.005 })).partner;
    const byDefault = (await create({ credit_limit: '1000.125' })).partner;
    expect([kwd.credit_limit, byDefault.credit_limit]).toEqual([10.005, 1000.125]);
    // In EUR no finer than the cent; two decimals as ever, even in JPY; four decimals by no currency.
    const before = (await sys.client.partners.partner.list({ org_id: '1', page_size: 100 })).pagination.total_items;
    const eur = await refusal(create({ currency: 'EUR', credit_limit: 10.005 }));
    expect([eur.status, eur.code, eur.errors?.[0]?.field, eur.message]).toEqual([
      400,
      'validation_failed',
      'credit_limit',
      'credit_limit 10.005 has more decimals than EUR has (2)',
    ]);
    expect((await refusal(create({ currency: 'KWD', credit_limit: 10.0005 }))).errors?.[0]?.field).toBe('credit_limit');
    expect((await sys.client.partners.partner.list({ org_id: '1', page_size: 100 })).pagination.total_items).toBe(before);
    const yen = (await create({ currency: 'JPY', credit_limit: 1000.5 })).partner;
    expect(yen.credit_limit).toBe(1000.5);
    // An edit is judged in the currency it leaves the partner in.
    const edit = (partner_id: number, over: Record<string, unknown>) => sys.client.partners.partner.edit({ ...who, partner_id, ...over });
    expect((await refusal(edit(yen.id, { credit_limit: 7.005 }))).errors?.[0]?.field).toBe('credit_limit');
    expect(await balance(yen.id)).toMatchObject({ credit_limit: 1000.5, currency: 'JPY' });
    expect((await edit(yen.id, { currency: 'BHD', credit_limit: 7.005 })).partner).toMatchObject({ currency: 'BHD', credit_limit: 7.005 });

    // A sale of exactly the limit passes; a fils more is refused, naming the limit to the fils.
    const sale = async (price: number) => {
      const { invoice } = await sys.client.invoicing.invoice.create({
        ...who,
        invoicetype: 'invoiceout',
        partner: kwd.id,
        currency: 'KWD',
        line_items: [line(price)],
      });
      return invoice.id;
    };
    await sys.client.invoicing.invoice.validate({ ...who, id: await sale(10.005) });
    await eventually(async () => expect(await balance(kwd.id)).toMatchObject({ receivable: 10.005, available_credit: 0 }));
    const over = await refusal(sys.client.invoicing.invoice.validate({ ...who, id: await sale(0.001) }));
    expect([over.code, over.message]).toEqual([
      'credit_limit_exceeded',
      expect.stringContaining('= 10.006 KWD, 0.001 KWD above the credit limit 10.005 KWD'),
    ]);
  });
});
