import { dec, type Dec } from '@bo/kernel';
import { createDb, type Knex } from '@bo/runtime';
import fc from 'fast-check';
import { newProducts } from '../support/catalog';
import { ok } from '../support/invoicing';
import { pdfText } from '../support/pdf';
import { eventually, startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/**
 * Cash application through the gateway (docs/invoicing.md, "Cash application"): each operation and
 * each refusal, then random sequences of invoices and bills, credit notes, payments in and out,
 * allocations, refunds, voids, write-offs and foreign-currency credit refunded at other rates, after
 * which the books must agree: no document paid beyond its total, no payment allocated beyond its
 * amount, every journal entry balanced, and the partners' balances (fed by events, exactly once)
 * equal to the trade accounts of the journal; and on past days too, the aged receivables and payables
 * (docs/invoicing.md, "Aged balances") and each partner's statement of either side equal to the
 * journal as of that day. The random sequences run in EUR books and in KWD books side by side, so all
 * of it holds to the fils (the foreign-currency credit in the EUR books).
 */
describe('cash application, end to end', () => {
  let sys: TestSystem;
  let invoicingDb: Knex;
  let partnersDb: Knex;
  let product: number;
  const customers: number[] = [];

  beforeAll(async () => {
    sys = await startTestSystem();
    invoicingDb = createDb(sys.databaseUrl, 'invoicing', 2);
    partnersDb = createDb(sys.databaseUrl, 'partners', 2);
    // Organization 1 keeps its books in EUR from the start: the accounting currency is fixed once they post.
    await ok(sys.post('/organization/setprofile', { org_id: 1, userid: 'e2e', default_currency: 'EUR' }));
    [product] = (await newProducts(sys, ['Consulting'])) as [number];
    for (const name of ['Ada', 'Brook', 'Cato']) {
      const r = await ok(
        sys.post('/crm/editpatner', {
          org_id: 1,
          userid: 'e2e',
          action: 'create',
          partnername: name,
          partner_type: 'customer',
          currency: 'EUR',
        }),
      );
      customers.push(r.body.partner.id);
    }
  });
  afterAll(async () => {
    await invoicingDb?.destroy();
    await partnersDb?.destroy();
    await sys?.stop();
  });

  const post = (path: string, body: Record<string, unknown>, org: 1 | 2 = 1) =>
    sys.post(path, { org_id: org, userid: 'e2e', ...body }, { org });
  const line = (price: number) => ({ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false });
  async function issued(partner: number, price: number, over: Record<string, unknown> = {}): Promise<number> {
    const inv = (await ok(post('/invoicing/invoice/new', { invoicetype: 'invoiceout', partner, line_items: [line(price)], ...over }))).body
      .invoice;
    await ok(post('/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
    return inv.id;
  }
  const payments = (body: Record<string, unknown>, org: 1 | 2 = 1) => post('/invoicing/payments', body, org);
  /** A new partner of `org`, made through the API: its id. */
  async function newPartner(partnername: string, partner_type: 'customer' | 'vendor' | 'both', currency: string, org: 1 | 2 = 1) {
    return (await ok(post('/crm/editpatner', { action: 'create', partnername, partner_type, currency }, org))).body.partner.id as number;
  }
  const report = (body: Record<string, unknown>, org: 1 | 2 = 1) => post('/invoicing/reports', body, org);
  /** A calendar date `days` after `date`. */
  const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

  /** Every table of invoicing, to prove a refusal changed nothing. */
  async function books(): Promise<string> {
    const tables = ['payments', 'payment_allocations', 'payment_refunds', 'journal_entries', 'journal_lines', 'invoices', 'outbox'];
    const counts = [];
    for (const t of tables) counts.push(`${t}:${JSON.stringify(await invoicingDb(t).count('* as n').first())}`);
    const paid = await invoicingDb('invoices').select('id', 'amount_paid', 'invoicestatus').orderBy('id');
    return counts.join(',') + JSON.stringify(paid);
  }
  async function refusedUnchanged(send: () => Promise<ApiResponse>, code: string, field?: string) {
    const before = await books();
    const r = await send();
    expect(r.statusCode).toBe(400);
    expect(r.body.code).toBe(code);
    if (field) expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await books()).toBe(before);
  }

  it('creates, allocates, refunds, voids, lists and gets payments, and writes off an invoice', async () => {
    const [ada] = customers as [number];
    const a = await issued(ada, 100);
    const b = await issued(ada, 80);
    const created = (
      await ok(
        payments({
          action: 'create',
          partner: ada,
          amount: 150,
          currency: 'EUR',
          direction: 'in',
          method: 'bank_transfer',
          reference: 'TRF-77',
          allocations: [{ invoice_id: a, amount: 100 }],
        }),
      )
    ).body.payment;
    expect(created).toMatchObject({ allocated: 100, unallocated: 50 });
    await ok(payments({ action: 'allocate', payment_id: created.id, allocations: [{ invoice_id: b, amount: 30 }] }));
    const refunded = (await ok(payments({ action: 'refund', payment_id: created.id, amount: 20 }))).body;
    expect(refunded.payment).toMatchObject({ allocated: 130, refunded: 20, unallocated: 0 });
    const other = (
      await ok(
        payments({
          action: 'create',
          partner: ada,
          amount: 50,
          currency: 'EUR',
          direction: 'in',
          allocations: [{ invoice_id: b, amount: 50 }],
        }),
      )
    ).body.payment;
    const voided = (await ok(payments({ action: 'void', payment_id: other.id, reason: 'bounced' }))).body;
    expect(voided.invoices[0]).toMatchObject({ id: b, amount_paid: 30, due_amount: 50, invoicestatus: 'open' });
    const written = (await ok(post('/invoicing/invoice/new', { write_off: true, id: b, reason: 'insolvent' }))).body.invoice;
    expect(written).toMatchObject({ invoicestatus: 'written_off', written_off_amount: 50, due_amount: 0 });
    const got = (await ok(payments({ action: 'get', payment_id: created.id }))).body.payment;
    expect(got.refunds).toHaveLength(1);
    const listed = (await ok(payments({ action: 'list', partner: ada }))).body;
    expect(listed.payments.map((p: { id: number }) => p.id)).toEqual([other.id, created.id]);
    // Ada owed 180; paid 150, 20 back, 50 voided, 50 written off: 180 - 150 + 20 - 50 + 50 - 50 = 0.
    await eventually(async () => {
      const { partner } = (await ok(sys.post('/crm/partners', { org_id: 1, partner_id: ada }))).body;
      expect(partner.balance).toBe(0);
    });
  });

  it('refuses over-allocation, cross-partner, cross-organization, currency mismatch and a second void, changing nothing', async () => {
    const [ada, brook] = customers as [number, number];
    const a = await issued(ada, 40);
    const theirs = await issued(brook, 40);
    const pay = (body: Record<string, unknown>) => () =>
      payments({ action: 'create', partner: ada, amount: 40, currency: 'EUR', direction: 'in', ...body });
    await refusedUnchanged(pay({ allocations: [{ invoice_id: a, amount: 40.01 }] }), 'validation_failed', 'allocations.0.amount');
    await refusedUnchanged(pay({ amount: 10, allocations: [{ invoice_id: a, amount: 20 }] }), 'validation_failed', 'amount');
    await refusedUnchanged(pay({ allocations: [{ invoice_id: theirs, amount: 1 }] }), 'validation_failed', 'allocations.0.invoice_id');
    await refusedUnchanged(pay({ currency: 'USD', allocations: [{ invoice_id: a, amount: 1 }] }), 'validation_failed', 'currency');
    // Organization 2 sees neither the invoice nor the payment of organization 1.
    const initech = await newPartner('Initech', 'customer', 'EUR', 2);
    await refusedUnchanged(
      () =>
        payments(
          {
            action: 'create',
            partner: initech,
            amount: 5,
            currency: 'EUR',
            direction: 'in',
            allocations: [{ invoice_id: a, amount: 5 }],
          },
          2,
        ),
      'not_found',
      'allocations.0.invoice_id',
    );
    const p = (await ok(pay({ amount: 10 })())).body.payment;
    await refusedUnchanged(
      () => payments({ action: 'allocate', payment_id: p.id, allocations: [{ invoice_id: a, amount: 1 }] }, 2),
      'not_found',
    );
    await ok(payments({ action: 'void', payment_id: p.id }));
    await refusedUnchanged(() => payments({ action: 'void', payment_id: p.id }), 'invalid_state');
  });

  it("moves cash in its currency's minor unit: a BHD invoice is paid to the mill; more decimals than a currency has are refused, changing nothing", async () => {
    const partner = await newPartner('Dinar Trading', 'customer', 'BHD');
    const invoice = await issued(partner, 1.234, { currency: 'BHD', exchange_rate: 2.5 });
    const pay =
      (amount: number, currency: string, more: Record<string, unknown> = {}) =>
      () =>
        payments({ action: 'create', partner, amount, currency, direction: 'in', exchange_rate: 2.5, ...more });
    await refusedUnchanged(pay(1.2345, 'BHD', { allocations: [{ invoice_id: invoice, amount: 1.2345 }] }), 'validation_failed', 'amount');
    await refusedUnchanged(
      pay(2, 'BHD', { allocations: [{ invoice_id: invoice, amount: 1.2345 }] }),
      'validation_failed',
      'allocations.0.amount',
    );
    await refusedUnchanged(pay(1.234, 'USD'), 'validation_failed', 'amount');
    await refusedUnchanged(pay(100.5, 'JPY'), 'validation_failed', 'amount');
    await refusedUnchanged(
      () => post('/invoicing/invoice/new', { register_payment: true, id: invoice, amount: 1.2345 }),
      'validation_failed',
      'amount',
    );
    // A refusal names its amounts to the mill, as the currency has them.
    const overpaid = await post('/invoicing/invoice/new', { register_payment: true, id: invoice, amount: 1.235 });
    expect([overpaid.statusCode, overpaid.body.message]).toEqual([
      400,
      expect.stringContaining('amount 1.235 exceeds the amount due 1.234'),
    ]);
    const overAllocated = await pay(2, 'BHD', { allocations: [{ invoice_id: invoice, amount: 1.235 }] })();
    expect([overAllocated.statusCode, overAllocated.body.errors?.[0]?.message]).toEqual([
      400,
      expect.stringContaining('1.235 exceeds the amount due 1.234'),
    ]);
    const paid = await ok(post('/invoicing/invoice/new', { register_payment: true, id: invoice, amount: 1.234 }));
    expect(paid.body.invoice).toMatchObject({ invoicestatus: 'paid', amount_paid: 1.234, due_amount: 0 });
    // A payment in mills leaves mills of credit, refunded to the mill.
    const credit = (await ok(pay(0.005, 'BHD')())).body.payment;
    await refusedUnchanged(() => payments({ action: 'refund', payment_id: credit.id, amount: 0.0045 }), 'validation_failed', 'amount');
    const overRefunded = await payments({ action: 'refund', payment_id: credit.id, amount: 0.006 });
    expect([overRefunded.statusCode, overRefunded.body.message]).toEqual([
      400,
      expect.stringContaining('0.006 exceeds the 0.005 unallocated credit'),
    ]);
    await ok(payments({ action: 'refund', payment_id: credit.id, amount: 0.005 }));
    expect((await ok(payments({ action: 'get', payment_id: credit.id }))).body.payment).toMatchObject({ amount: 0.005, refunded: 0.005 });
  });

  it("ages receivables as of past days and states a customer's account, the worked example of docs/invoicing.md", async () => {
    const dora = await newPartner('Dora', 'customer', 'EUR');
    const a = await issued(dora, 100, { invoicedatetime: '2025-01-05T10:00:00', invoicedue: '2025-01-20' });
    const b = await issued(dora, 80, { invoicedatetime: '2025-02-01T10:00:00', invoicedue: '2025-02-15' });
    const pay = (
      await ok(
        payments({
          action: 'create',
          partner: dora,
          amount: 150,
          currency: 'EUR',
          direction: 'in',
          payment_date: '2025-02-10',
          allocations: [{ invoice_id: a, amount: 100 }],
        }),
      )
    ).body.payment;
    await ok(
      payments({ action: 'allocate', payment_id: pay.id, allocation_date: '2025-03-01', allocations: [{ invoice_id: b, amount: 30 }] }),
    );
    await ok(payments({ action: 'refund', payment_id: pay.id, amount: 20, refund_date: '2025-03-15' }));
    await ok(post('/invoicing/invoice/new', { write_off: true, id: b, write_off_date: '2025-04-30' }));

    const aged = async (as_of: string) => {
      const r = (await ok(report({ report: 'aged_receivables', as_of }))).body;
      return r.partners.find((p: { partner: number }) => p.partner === dora);
    };
    const figures = (row: Record<string, number> | undefined) =>
      row && [row.current, row['1_30'], row['31_60'], row['61_90'], row.over_90, row.unallocated_credit, row.total];
    // INV A 16 days overdue, B not yet due.
    expect(figures(await aged('2025-02-05'))).toEqual([80, 100, 0, 0, 0, 0, 180]);
    // A paid; 50.00 of the payment is credit; B 5 days overdue.
    const feb20 = await aged('2025-02-20');
    expect(figures(feb20)).toEqual([0, 80, 0, 0, 0, 50, 30]);
    expect(feb20.credits).toMatchObject([{ source: 'payment', payment_id: pay.id, unallocated: 50 }]);
    expect(figures(await aged('2025-03-05'))).toEqual([0, 50, 0, 0, 0, 20, 30]);
    expect(figures(await aged('2025-03-20'))).toEqual([0, 0, 50, 0, 0, 0, 50]);
    // Written off: nothing open, Dora is not listed.
    expect(await aged('2025-05-01')).toBeUndefined();

    const statement = (await ok(report({ report: 'statement', partner: dora, date_from: '2025-02-01', date_to: '2025-03-31' }))).body;
    expect(statement.opening_balance).toBe(100);
    expect(statement.lines.map((l: Record<string, unknown>) => [l.date, l.kind, l.debit, l.credit, l.balance])).toEqual([
      ['2025-02-01', 'invoice', 80, 0, 180],
      ['2025-02-10', 'payment', 0, 150, 30],
      ['2025-02-10', 'allocation', 0, 0, 30],
      ['2025-03-01', 'allocation', 0, 0, 30],
      ['2025-03-15', 'refund', 20, 0, 50],
    ]);
    expect(statement.closing_balance).toBe(50);
    const later = (await ok(report({ report: 'statement', partner: dora, date_from: '2025-04-01', date_to: '2025-12-31' }))).body;
    expect([later.opening_balance, later.lines.map((l: { kind: string }) => l.kind), later.closing_balance]).toEqual([
      50,
      ['write_off'],
      0,
    ]);

    const pdf = (await ok(report({ report: 'statement', partner: dora, date_from: '2025-02-01', date_to: '2025-03-31', format: 'pdf' })))
      .body;
    expect(pdf).toMatchObject({ report: 'statement', format: 'pdf', content_type: 'application/pdf' });
    expect(pdf.filename).toBe(`statement-${dora}-2025-02-01-2025-03-31.pdf`);
    expect(Buffer.from(pdf.content_base64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    // Dated by the period, not the clock: the same statement is the same bytes.
    const again = (await ok(report({ report: 'statement', partner: dora, date_from: '2025-02-01', date_to: '2025-03-31', format: 'pdf' })))
      .body;
    expect(again.content_base64).toBe(pdf.content_base64);
  });

  it("states a vendor's account, what is owed to it, and either side of a partner that is both (docs/invoicing.md, Statements)", async () => {
    const vega = await newPartner('Vega', 'vendor', 'EUR');
    const billA = await issued(vega, 200, { invoicetype: 'invoicein', invoicedatetime: '2025-01-10T10:00:00', invoicedue: '2025-02-09' });
    await ok(
      payments({
        action: 'create',
        partner: vega,
        amount: 120,
        currency: 'EUR',
        direction: 'out',
        payment_date: '2025-01-20',
        allocations: [{ invoice_id: billA, amount: 120 }],
      }),
    );
    // The vendor's credit note settles the bill it credits as it is validated: an allocation that day.
    await issued(vega, 30, {
      invoicetype: 'creditin',
      sourcetype: 'invoice',
      sourceid: String(billA),
      invoicedatetime: '2025-02-01T10:00:00',
    });
    await issued(vega, 50, { invoicetype: 'invoicein', invoicedatetime: '2025-02-15T10:00:00', invoicedue: '2025-03-15' });

    // What is owed to it: a payable, which rises by credits.
    const period = { report: 'statement', partner: vega, side: 'vendor', date_from: '2025-02-01', date_to: '2025-02-28' };
    const statement = (await ok(report(period))).body;
    expect([statement.side, statement.opening_balance, statement.closing_balance]).toEqual(['vendor', 80, 100]);
    expect(statement.lines.map((l: Record<string, unknown>) => [l.date, l.kind, l.debit, l.credit, l.balance])).toEqual([
      ['2025-02-01', 'credit_note', 30, 0, 50],
      ['2025-02-01', 'allocation', 0, 0, 50],
      ['2025-02-15', 'invoice', 0, 50, 100],
    ]);
    const payables = (await ok(report({ report: 'aged_payables', as_of: '2025-02-28' }))).body;
    expect(payables.partners.find((p: { partner: number }) => p.partner === vega)?.total).toBe(100);
    // Without `side`, its customer side, whatever its type: nothing on it.
    const customerSide = (await ok(report({ ...period, side: undefined }))).body;
    expect([customerSide.side, customerSide.opening_balance, customerSide.lines, customerSide.closing_balance]).toEqual([
      'customer',
      0,
      [],
      0,
    ]);
    const pdf = (await ok(report({ ...period, format: 'pdf' }))).body;
    expect([pdf.side, pdf.filename]).toEqual(['vendor', `statement-${vega}-vendor-2025-02-01-2025-02-28.pdf`]);
    expect(pdfText(Buffer.from(pdf.content_base64, 'base64'))).toContain('Payable: what is owed to the vendor');

    // Both a customer and a vendor: each side on its own.
    const janus = await newPartner('Janus Both', 'both', 'EUR');
    await issued(janus, 40, { invoicedatetime: '2025-03-01T10:00:00', invoicedue: '2025-03-31' });
    await issued(janus, 25, { invoicetype: 'invoicein', invoicedatetime: '2025-03-02T10:00:00', invoicedue: '2025-04-01' });
    const month = { report: 'statement', partner: janus, date_from: '2025-03-01', date_to: '2025-03-31' };
    const sides = await Promise.all([month, { ...month, side: 'vendor' }].map(async (body) => (await ok(report(body))).body));
    expect(
      sides.map((st) => [st.side, st.lines.map((l: Record<string, unknown>) => [l.kind, l.debit, l.credit]), st.closing_balance]),
    ).toEqual([
      ['customer', [['invoice', 40, 0]], 40],
      ['vendor', [['invoice', 0, 25]], 25],
    ]);
    await refusedUnchanged(() => report({ ...month, side: 'supplier' }), 'validation_failed', 'side');
  });

  it("refuses reports for an unknown or another organization's partner and a backwards period, changing nothing", async () => {
    const [ada] = customers as [number];
    const initech = await newPartner('Initech 2', 'customer', 'EUR', 2);
    const statement = (body: Record<string, unknown>) => () =>
      report({ report: 'statement', partner: ada, date_from: '2025-01-01', date_to: '2025-12-31', ...body });
    await refusedUnchanged(statement({ partner: 987_654 }), 'not_found', 'partner');
    await refusedUnchanged(statement({ partner: initech }), 'not_found', 'partner');
    await refusedUnchanged(statement({ partner: initech, format: 'pdf' }), 'not_found', 'partner');
    await refusedUnchanged(statement({ date_from: '2026-01-01' }), 'validation_failed', 'date_from');
    await refusedUnchanged(statement({ format: 'docx' }), 'validation_failed', 'format');
    await refusedUnchanged(() => report({ report: 'aged_receivables', as_of: '2025-02-30' }), 'validation_failed', 'as_of');
    await refusedUnchanged(() => report({ report: 'aged_payables', as_of: 'yesterday' }), 'validation_failed', 'as_of');
    await refusedUnchanged(() => report({ report: 'aged', as_of: '2025-01-01' }), 'validation_failed', 'report');
    // Organization 2 sees none of organization 1's books.
    const theirs = (await ok(report({ report: 'aged_receivables' }, 2))).body;
    expect(theirs.partners.map((p: { partner: number }) => p.partner)).not.toContain(ada);
  });

  it('keeps the books whole under random sequences of cash operations, in cents and in fils (fast-check, seed printed)', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`cash application property seed: ${seed} (replay with FC_SEED=${seed})`);
    // Two sets of books side by side: organization 1's EUR documents and organization 2, which keeps
    // its books in KWD (three decimals), so every invariant is checked to the fils as well as the cent.
    await ok(post('/organization/setprofile', { default_currency: 'KWD' }, 2));
    await eventually(async () =>
      expect((await invoicingDb('organization_settings').where({ org_id: 2 }).first())?.default_currency).toBe('KWD'),
    );
    const [kwdProduct] = (await newProducts(sys, ['Consulting'], { org: 2 })) as [number];
    const kwdCustomers: number[] = [];
    for (const name of ['Dana', 'Eid', 'Faris']) kwdCustomers.push(await newPartner(name, 'customer', 'KWD', 2));
    // Vendors: one that is a vendor only, and one that is both, so one partner has both sides at once.
    const [vera, janus] = [await newPartner('Vera', 'vendor', 'EUR'), await newPartner('Janus', 'both', 'EUR')];
    const [yusuf, zaid] = [await newPartner('Yusuf', 'vendor', 'KWD', 2), await newPartner('Zaid', 'both', 'KWD', 2)];
    const ledger = (partners: number[]): Ledger => ({ partners, invoices: [], notes: [], paid: [] });
    const books: Record<'EUR' | 'KWD', Books> = {
      EUR: { org: 1, currency: 'EUR', decimals: 2, product, customer: ledger([...customers, janus]), vendor: ledger([vera, janus]) },
      KWD: {
        org: 2,
        currency: 'KWD',
        decimals: 3,
        product: kwdProduct,
        customer: ledger([...kwdCustomers, zaid]),
        vendor: ledger([yusuf, zaid]),
      },
    };
    // An amount as a count of the book's minor units (cents or fils), 1 to 20,000 of them.
    const minor = fc.integer({ min: 1, max: 20_000 });
    const pick = fc.nat({ max: 1000 });
    // Every operation is dated within the last 120 days, in any order (a void or an allocation may be
    // dated before what it touches): the books as of each day must still agree with the journal.
    const today = (await ok(report({ report: 'aged_receivables' }))).body.as_of as string;
    const first = plusDays(today, -120);
    const day = fc.nat({ max: 120 });
    // Foreign-currency credit (docs/invoicing.md "Payments in another currency"), in organization 1's
    // books only, which are kept in EUR: a USD customer pays at one rate and is refunded the whole credit
    // in pieces at others. Its credit is worth, on the receivable, what the payment booked; every refund
    // realizes the difference.
    const dollars = await newPartner('Dollar', 'customer', 'USD');
    await eventually(async () => expect(await invoicingDb('partner_directory').where({ id: dollars }).first()).toBeDefined());
    // Rates from 0.01 to 10 with up to 6 decimals, as exact text.
    const rate = fc
      .integer({ min: 10_000, max: 10_000_000 })
      .map((micro) => `${Math.floor(micro / 1e6)}.${String(micro % 1e6).padStart(6, '0')}`);
    const book = fc.constantFrom<keyof typeof books>('EUR', 'KWD');
    // Which side of the books: customers' invoices and money in, or vendors' bills and money out.
    const side = fc.constantFrom<Side>('customer', 'vendor');
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('foreign_credit' as const),
        book: fc.constant('EUR' as const),
        // In cents of USD.
        amount: minor,
        rate,
        // The pieces refunded, by weight, each at its own rate, all on one day `after` the payment's.
        refunds: fc.array(fc.tuple(fc.integer({ min: 1, max: 10 }), rate), { minLength: 1, maxLength: 3 }),
        day,
        after: fc.nat({ max: 30 }),
      }),
      fc.record({ kind: fc.constant('invoice' as const), book, side, who: pick, amount: minor, day, due: fc.nat({ max: 60 }) }),
      fc.record({ kind: fc.constant('credit_note' as const), book, side, which: pick, amount: minor, day }),
      fc.record({
        kind: fc.constant('payment' as const),
        book,
        side,
        who: pick,
        amount: minor,
        allocations: fc.array(fc.tuple(pick, minor), { maxLength: 3 }),
        day,
      }),
      // `fit`: the amount cut to what the source has left (and the document still owes), so that
      // allocations and refunds are carried out, not only refused.
      fc.record({
        kind: fc.constant('allocate' as const),
        book,
        side,
        from: pick,
        note: fc.boolean(),
        which: pick,
        amount: minor,
        fit: fc.boolean(),
        day,
      }),
      fc.record({
        kind: fc.constant('refund' as const),
        book,
        side,
        from: pick,
        note: fc.boolean(),
        amount: minor,
        fit: fc.boolean(),
        day,
      }),
      fc.record({ kind: fc.constant('void' as const), book, side, which: pick, day }),
      fc.record({ kind: fc.constant('write_off' as const), book, which: pick, day }),
    );
    const nth = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 20 }), fc.array(day, { minLength: 3, maxLength: 3 }), async (ops, asOf) => {
        for (const o of ops) {
          let r: ApiResponse | undefined;
          const b = books[o.book];
          const send = (path: string, body: Record<string, unknown>) => post(path, body, b.org);
          const money = (units: number) => units / 10 ** b.decimals;
          /** `units`, or less: at most each of the amounts given (what is left to take), when there is any. */
          const fitted = (units: number, fit: boolean, ...left: string[]) => {
            const most = Math.min(...left.map((a) => Math.round(Number(a) * 10 ** b.decimals)));
            return fit && most > 0 ? Math.min(units, most) : units;
          };
          /** What a payment or a credit note has left to allocate or refund, as the books hold it. */
          const unallocated = async (source: { payment_id?: number; credit_note_id?: number }): Promise<string> => {
            if (source.payment_id !== undefined) {
              const p = await invoicingDb('payments').where({ id: source.payment_id }).first();
              return dec(p.amount).minus(dec(p.allocated)).minus(dec(p.refunded)).toFixed();
            }
            return due(source.credit_note_id as number);
          };
          const due = async (id: number): Promise<string> => {
            const d = await invoicingDb('invoices').where({ id }).first();
            return dec(d.invoicetotal).minus(dec(d.amount_paid)).minus(dec(d.written_off_amount)).toFixed();
          };
          const date = plusDays(first, o.day);
          const lineOf = (units: number) => ({ product_id: b.product, quantity: 1, price: money(units), tax_rate: 0, tax_included: false });
          // The side's documents and cash: customers' invoices and money in, vendors' bills and money out.
          const l = 'side' in o ? b[o.side] : b.customer;
          const vendor = 'side' in o && o.side === 'vendor';
          if (o.kind === 'invoice') {
            const created = await ok(
              send('/invoicing/invoice/new', {
                invoicetype: vendor ? 'invoicein' : 'invoiceout',
                partner: l.partners[o.who % l.partners.length],
                currency: b.currency,
                invoicedatetime: `${date}T10:00:00`,
                invoicedue: plusDays(date, o.due),
                line_items: [lineOf(o.amount)],
              }),
            );
            await ok(send('/invoicing/invoice/new', { validate_invoice: true, id: created.body.invoice.id }));
            l.invoices.push(created.body.invoice.id);
          } else if (o.kind === 'credit_note') {
            const credited = nth(l.invoices, o.which);
            if (credited === undefined) continue;
            const inv = await invoicingDb('invoices').where({ id: credited }).first();
            // A credit note names its invoice; one written off is refused (400), like any refusal here.
            const created = await send('/invoicing/invoice/new', {
              invoicetype: vendor ? 'creditin' : 'creditout',
              partner: inv.partner_id,
              currency: b.currency,
              sourcetype: 'invoice',
              sourceid: String(credited),
              invoicedatetime: `${date}T10:00:00`,
              line_items: [lineOf(o.amount)],
            });
            expect([200, 400]).toContain(created.statusCode);
            if (created.statusCode !== 200) continue;
            const note = created.body.invoice;
            r = await send('/invoicing/invoice/new', { validate_invoice: true, id: note.id });
            if (r.statusCode === 200) l.notes.push(note.id);
          } else if (o.kind === 'payment') {
            const who = l.partners[o.who % l.partners.length] as number;
            const allocations = o.allocations.flatMap(([i, units]) => {
              const id = nth(l.invoices, i);
              return id === undefined ? [] : [{ invoice_id: id, amount: money(units) }];
            });
            r = await send('/invoicing/payments', {
              action: 'create',
              partner: who,
              amount: money(o.amount),
              currency: b.currency,
              direction: vendor ? 'out' : 'in',
              payment_date: date,
              allocations,
            });
            if (r.statusCode === 200) l.paid.push(r.body.payment.id);
          } else if (o.kind === 'allocate') {
            const source = o.note ? { credit_note_id: nth(l.notes, o.from) } : { payment_id: nth(l.paid, o.from) };
            const target = nth(l.invoices, o.which);
            if (Object.values(source)[0] === undefined || target === undefined) continue;
            const amount = fitted(o.amount, o.fit, await unallocated(source), await due(target));
            r = await send('/invoicing/payments', {
              action: 'allocate',
              ...source,
              allocation_date: date,
              allocations: [{ invoice_id: target, amount: money(amount) }],
            });
          } else if (o.kind === 'refund') {
            const source = o.note ? { credit_note_id: nth(l.notes, o.from) } : { payment_id: nth(l.paid, o.from) };
            if (Object.values(source)[0] === undefined) continue;
            const amount = fitted(o.amount, o.fit, await unallocated(source));
            r = await send('/invoicing/payments', { action: 'refund', ...source, amount: money(amount), refund_date: date });
          } else if (o.kind === 'foreign_credit') {
            const credit = (
              await ok(
                send('/invoicing/payments', {
                  action: 'create',
                  partner: dollars,
                  amount: money(o.amount),
                  currency: 'USD',
                  direction: 'in',
                  payment_date: date,
                  exchange_rate: o.rate,
                }),
              )
            ).body.payment;
            // The whole credit goes back on one day, so every day the reports are asked about sees all of it or none.
            const refundDate = plusDays(first, Math.min(120, o.day + o.after));
            const weights = o.refunds.reduce((s, [w]) => s + w, 0);
            // A credit worth nothing at its rate posts no entry.
            const entries: number[] = credit.journal_entry_id === null ? [] : [credit.journal_entry_id];
            let left = o.amount;
            for (const [i, [w, at]] of o.refunds.entries()) {
              const piece = i === o.refunds.length - 1 ? left : Math.floor((o.amount * w) / weights);
              left -= piece;
              if (piece === 0) continue;
              const { refund } = (
                await ok(
                  send('/invoicing/payments', {
                    action: 'refund',
                    payment_id: credit.id,
                    amount: money(piece),
                    refund_date: refundDate,
                    exchange_rate: at,
                  }),
                )
              ).body;
              entries.push(refund.journal_entry_id);
              // The bank pays out the piece at its own rate (half up to the cent), whatever the credit booked.
              const [whole, micro = ''] = at.split('.');
              const worth = Math.floor((piece * (Number(whole) * 1e6 + Number(micro.padEnd(6, '0'))) + 500_000) / 1e6);
              const bank = await invoicingDb('journal_lines').where({ entry_id: refund.journal_entry_id, account: 'Bank' }).first();
              expect([refund.id, exact(bank?.credit ?? 0)]).toEqual([refund.id, exact(money(worth))]);
            }
            // Refunded whole, the credit leaves the receivable exactly at what the payment booked it at.
            const cleared = await invoicingDb('journal_lines')
              .whereIn('entry_id', entries)
              .where({ account: '1200 Accounts Receivable' })
              .first(invoicingDb.raw('coalesce(sum(debit - credit), 0) as net'));
            expect([credit.id, exact(cleared?.net ?? 0)]).toEqual([credit.id, '0']);
            continue;
          } else if (o.kind === 'void') {
            const id = nth(l.paid, o.which);
            if (id === undefined) continue;
            r = await send('/invoicing/payments', { action: 'void', payment_id: id, void_date: date });
          } else {
            // Customer invoices only are written off.
            const id = nth(l.invoices, o.which);
            if (id === undefined) continue;
            r = await send('/invoicing/invoice/new', { write_off: true, id, write_off_date: date });
          }
          // Refused or done, never a failure of the server.
          if (r) expect([200, 400]).toContain(r.statusCode);
        }
        for (const b of Object.values(books)) {
          await booksAgree(b);
          // Before everything, three days in the range, today, and a day to come (everything ages on).
          for (const d of [plusDays(first, -1), ...asOf.map((n) => plusDays(first, n)), today, plusDays(today, 100)]) await agedAgree(b, d);
        }
      }),
      { seed, numRuns: Number(process.env.FC_RUNS ?? 10) },
    );
  }, 600_000);

  type Side = 'customer' | 'vendor';
  /** One side of one organization's books: its partners and what was made on it so far. */
  interface Ledger {
    partners: number[];
    /** Invoices on the customer side, bills on the vendor side. */
    invoices: number[];
    notes: number[];
    paid: number[];
  }
  /** One organization's books in the property: its currency, and each side's ledger. */
  interface Books {
    org: 1 | 2;
    currency: 'EUR' | 'KWD';
    decimals: number;
    product: number;
    customer: Ledger;
    vendor: Ledger;
  }

  /** Amounts compared exactly, whatever their decimals (a fils is not rounded away) or their trailing zeros. */
  const exact = (n: number | string) => dec(n).toFixed();
  const total = (ns: Array<number | string>) => ns.reduce<Dec>((s, n) => s.plus(dec(n)), dec(0)).toFixed();

  /**
   * A trade account of the organization's journal (the receivable, or the payable), up to `asOf` when
   * given, exactly, on the side it rises: debits less credits for the receivable, credits less debits
   * for the payable.
   */
  async function journalTrade(org: 1 | 2, side: Side, asOf?: string): Promise<string> {
    const [account, rise] =
      side === 'customer' ? ['1200 Accounts Receivable', 'l.debit - l.credit'] : ['2000 Accounts Payable', 'l.credit - l.debit'];
    const { rows } = await invoicingDb.raw(
      `select coalesce(sum(${rise}), 0) as trade from journal_lines l join journal_entries e on e.id = l.entry_id
        where e.org_id = ? and l.account = ? and (?::date is null or e.journaldate <= ?::date)`,
      [org, account, asOf ?? null, asOf ?? null],
    );
    return exact(rows[0].trade);
  }

  /**
   * As of `asOf`, on each side: the aged receivables' (payables') total = the sum of its partners'
   * totals = the receivable (payable) account of the journal up to that day; each partner's buckets
   * less its credit = its total = the closing balance of its statement of that side up to that day.
   * All to the book's minor unit and beyond.
   */
  async function agedAgree(b: Books, asOf: string): Promise<void> {
    for (const [side, name] of [
      ['customer', 'aged_receivables'],
      ['vendor', 'aged_payables'],
    ] as const) {
      const aged = (await ok(report({ report: name, as_of: asOf }, b.org))).body;
      const trade = await journalTrade(b.org, side, asOf);
      const partnersSum = total(aged.partners.map((p: { total: number }) => p.total));
      expect([b.currency, name, asOf, exact(aged.totals.total), partnersSum]).toEqual([b.currency, name, asOf, trade, trade]);
      for (const p of aged.partners) {
        const buckets = dec(total(['current', '1_30', '31_60', '61_90', 'over_90'].map((k) => p[k])));
        expect([b.currency, name, asOf, p.partner, buckets.minus(dec(p.unallocated_credit)).toFixed()]).toEqual([
          b.currency,
          name,
          asOf,
          p.partner,
          exact(p.total),
        ]);
      }
      for (const partner of b[side].partners) {
        const period = { report: 'statement', partner, side, date_from: plusDays(asOf, -400), date_to: asOf };
        const statement = (await ok(report(period, b.org))).body;
        const row = aged.partners.find((p: { partner: number }) => p.partner === partner);
        expect([b.currency, name, asOf, partner, exact(statement.closing_balance)]).toEqual([
          b.currency,
          name,
          asOf,
          partner,
          exact(row?.total ?? 0),
        ]);
        // Each line moves the balance by its columns as the side's trade account reads them: a
        // receivable rises by debits, a payable by credits; the last balance is the closing one.
        let running = dec(statement.opening_balance);
        for (const l of statement.lines as Array<{ debit: number; credit: number; balance: number }>) {
          const rise = side === 'customer' ? dec(l.debit).minus(dec(l.credit)) : dec(l.credit).minus(dec(l.debit));
          running = running.plus(rise);
          expect([name, asOf, partner, exact(l.balance)]).toEqual([name, asOf, partner, running.toFixed()]);
        }
        expect([name, asOf, partner, exact(statement.closing_balance)]).toEqual([name, asOf, partner, running.toFixed()]);
      }
    }
  }

  async function booksAgree(b: Books): Promise<void> {
    const over = await invoicingDb('invoices').whereRaw('amount_paid + written_off_amount > invoicetotal').count('* as n').first();
    expect(Number(over?.n)).toBe(0);
    const overAllocated = await invoicingDb.raw(
      `select p.id from payments p left join payment_allocations a on a.payment_id = p.id and a.status = 'active'
        group by p.id, p.amount, p.refunded, p.allocated having coalesce(sum(a.amount), 0) + p.refunded > p.amount or coalesce(sum(a.amount), 0) <> p.allocated`,
    );
    expect(overAllocated.rows).toEqual([]);
    const unbalanced = await invoicingDb.raw(
      'select e.id from journal_entries e join journal_lines l on l.entry_id = e.id group by e.id having sum(l.debit) <> sum(l.credit)',
    );
    expect(unbalanced.rows).toEqual([]);
    const receivable = await journalTrade(b.org, 'customer');
    const payable = await journalTrade(b.org, 'vendor');
    // The ledger follows by events: it catches up, exactly once, and to the fils. A partner's balance
    // is what it owes: its receivable less what is owed to it.
    await eventually(async () => {
      const sums = await partnersDb('partners').where({ org_id: b.org }).sum({ balance: 'balance', receivable: 'receivable' }).first();
      expect([b.currency, exact(sums?.balance ?? 0), exact(sums?.receivable ?? 0)]).toEqual([
        b.currency,
        dec(receivable).minus(dec(payable)).toFixed(),
        receivable,
      ]);
    });
  }
});
