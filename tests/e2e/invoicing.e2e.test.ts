import type { OperationNamed, RequestBody } from '@bo/client';
import type { EventEnvelope } from '@bo/contracts';
import { AmqpBus, createDb, createLogger, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

// Every line names a catalog product; beforeAll creates them and puts their ids here.
const specLine = {
  product_id: 0 as number | string,
  product_name: 'Widget',
  quantity: 5,
  price: 50,
  discount: 10,
  tax_rate: 15,
  tax_included: false,
};
const taxIncludedLine = { product_id: '', quantity: 1, price: 115, tax_rate: 15, tax_included: true };
const tenthsLine = { product_id: '', quantity: 3, price: 0.1, tax_rate: 0, tax_included: false };
let org2Product = 0;

/** Invoicing through the gateway with the typed client; raw HTTP for bodies the types forbid and for spec paths the client does not use. */
describe('invoicing through the gateway', () => {
  let sys: TestSystem;
  let invoicingDb: Knex;
  let bus: AmqpBus;

  beforeAll(async () => {
    sys = await startTestSystem({ services: ['partners', 'catalog', 'invoicing'] });
    const [widget, gadget, tenths] = await newProducts(sys, ['Widget', 'Gadget', 'Tenths']);
    [specLine.product_id, taxIncludedLine.product_id, tenthsLine.product_id] = [widget!, String(gadget), String(tenths)];
    [org2Product] = (await newProducts(sys, ['Theirs'], { org: 2 })) as [number];
    invoicingDb = createDb(sys.databaseUrl, 'invoicing', 2);
    bus = new AmqpBus({ url: await testing.testAmqpUrl(), prefix: sys.system.config.BUS_PREFIX, log: createLogger('e2e', 'silent') });
    await bus.connect();
  });
  afterAll(async () => {
    await bus?.close();
    await invoicingDb?.destroy();
    await sys?.stop();
  });

  type PartnerFields = Partial<Omit<RequestBody<OperationNamed<'partners.partner.create'>>, 'org_id' | 'partnername'>>;
  type InvoiceRequest = RequestBody<OperationNamed<'invoicing.invoice.create'>>;
  type InvoiceFields = Omit<InvoiceRequest, 'org_id' | 'invoicetype'> & Partial<Pick<InvoiceRequest, 'invoicetype'>>;
  const clientOf = (org: 1 | 2) => (org === 1 ? sys.client : sys.clientOf(2));
  const invoicing = () => sys.client.invoicing.invoice;
  /** Organization 1 as user 7, whose id the invoices record. */
  const as7 = { org_id: '1', userid: '7' } as const;
  /** A call on a path of the spec the client does not use (a trailing slash, another path of the service): sent raw, must answer 200. */
  const okRaw = async (path: string, payload: Record<string, unknown>) => {
    const res = await sys.post(path, { ...as7, ...payload });
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${JSON.stringify(res.body)}`);
    expect(res.httpStatus).toBe(200);
    return res.body;
  };
  const newPartner = async (partnername: string, extra: PartnerFields = {}, org: 1 | 2 = 1) =>
    (await clientOf(org).partners.partner.create({ org_id: String(org), userid: '7', partnername, partner_type: 'customer', ...extra }))
      .partner;
  const newInvoice = async (fields: InvoiceFields, org: 1 | 2 = 1) =>
    (
      await clientOf(org).invoicing.invoice.create({
        org_id: String(org),
        userid: '7',
        invoicetype: 'invoiceout',
        invoicedatetime: '2025-06-01T10:00:00',
        ...fields,
      })
    ).invoice;
  const validate = (id: number, extra: { override_credit_limit?: boolean } = {}) => invoicing().validate({ ...as7, id, ...extra });
  const balanceOf = (partnerId: number) =>
    sys.client.partners.partner.balance({ ...as7, partner_id: partnerId, include_transactions: true });
  const invoiceOf = async (id: number, include_items?: boolean) => (await invoicing().balances({ ...as7, id, include_items })).invoices[0]!;

  it('creates, validates and pays an invoice, and the partner balance follows', async () => {
    const partner = await newPartner('Acme Corp');
    const invoice = await newInvoice({ partner: String(partner.id), invoicetotal: 1, line_items: [specLine, taxIncludedLine, tenthsLine] });
    expect(invoice).toMatchObject({
      invoicenumber: 'INV-00001',
      invoicestatus: 'draft',
      subtotal: 325.3,
      tax_amount: 48.75,
      invoicetotal: 374.05,
      userid: 7,
    });

    const validated = await validate(invoice.id);
    expect(validated.invoice).toMatchObject({ id: invoice.id, invoicestatus: 'open', journal_entry_id: expect.any(Number) });
    const afterValidation = await eventually(async () => {
      const b = await balanceOf(partner.id);
      expect(b.partner.balance).toBe(374.05);
      return b;
    });
    expect(afterValidation.partner.available_credit).toBe(-374.05);
    expect(afterValidation.transactions).toEqual([
      { id: expect.any(Number), type: 'invoice', document_number: 'INV-00001', date: '2025-06-01', amount: 374.05, paid: 0, due: 374.05 },
    ]);

    const paid = await invoicing().registerPayment({ ...as7, id: invoice.id, amount: 74.05, payment_date: '2025-06-10', journal: 'Bank' });
    expect(paid.invoice).toMatchObject({ invoicestatus: 'open', amount_paid: 74.05, due_amount: 300 });
    const afterPayment = await eventually(async () => {
      const b = await balanceOf(partner.id);
      expect(b.partner.balance).toBe(300);
      return b;
    });
    expect(afterPayment.transactions?.map((t) => [t.type, t.document_number, t.date, t.amount, t.paid, t.due])).toEqual([
      ['invoice', 'INV-00001', '2025-06-01', 374.05, 74.05, 300],
      ['payment', 'INV-00001', '2025-06-10', 74.05, 74.05, 0],
    ]);

    const balances = await invoiceOf(invoice.id, true);
    expect(balances).toMatchObject({
      id: invoice.id,
      invoicenumber: 'INV-00001',
      invoicetotal: 374.05,
      amount_paid: 74.05,
      due_amount: 300,
    });
    expect(balances.journals).toHaveLength(1);
    expect(balances.payjournals).toEqual([{ id: expect.any(Number), journalname: 'Bank', journaldate: '2025-06-10', amount: 74.05 }]);
    expect(balances.line_items?.map((l) => l.total)).toEqual([258.75, 115, 0.3]);
  });

  it('lowers the balance with a credit note and its refund', async () => {
    const partner = await newPartner('Credited Ltd');
    const invoice = await newInvoice({ partner: partner.id, line_items: [specLine] });
    await validate(invoice.id);
    const credit = await newInvoice({ partner: partner.id, invoicetype: 'creditout', line_items: [taxIncludedLine] });
    expect(credit.invoicenumber).toBe('CRN-00001');
    await validate(credit.id);
    await eventually(async () => expect((await balanceOf(partner.id)).partner.balance).toBe(143.75));
    // Refunding the credit note settles it: the balance goes back up by what was refunded.
    await invoicing().registerPayment({ ...as7, id: credit.id, amount: 115, payment_date: '2025-06-20' });
    const b = await eventually(async () => {
      const r = await balanceOf(partner.id);
      expect(r.partner.balance).toBe(258.75);
      return r;
    });
    expect(b.transactions?.map((t) => [t.type, t.document_number, t.amount, t.paid, t.due])).toEqual([
      ['invoice', invoice.invoicenumber, 258.75, 0, 258.75],
      ['credit_note', 'CRN-00001', 115, 115, 0],
      ['payment', 'CRN-00001', 115, 115, 0],
    ]);
    // The spec's list path, trailing slash included (the client uses the path without it).
    const listed = await okRaw('/invoicing/listinvoices/', { partner_ids: [String(partner.id)], sort_by: 'number', sort_order: 'asc' });
    expect(listed.invoices.map((i: any) => [i.invoicenumber, i.invoicestatus, i.due_amount])).toEqual([
      ['CRN-00001', 'paid', 0],
      [invoice.invoicenumber, 'open', 258.75],
    ]);
  });

  it('moves the balance once when the same event is delivered twice', async () => {
    const partner = await newPartner('Twice Inc');
    const invoice = await newInvoice({ partner: partner.id, line_items: [tenthsLine] });
    await validate(invoice.id);
    await eventually(async () => expect((await balanceOf(partner.id)).partner.balance).toBe(0.3));
    const row = await invoicingDb('outbox')
      .where({ type: 'invoicing.invoice.validated' })
      .whereRaw(`(envelope->'data'->>'invoice_id')::int = ?`, [invoice.id])
      .first();
    const validatedEvent = row.envelope as EventEnvelope;
    await bus.publish(validatedEvent);
    await bus.publish(validatedEvent);
    // A payment published after the duplicates: once it shows, the duplicates have been seen.
    await invoicing().registerPayment({ ...as7, id: invoice.id, amount: 0.1, payment_date: '2025-06-02' });
    const b = await eventually(async () => {
      const r = await balanceOf(partner.id);
      expect(r.transactions).toHaveLength(2);
      return r;
    });
    expect(b.partner.balance).toBe(0.2);
    expect(b.transactions?.filter((t) => t.type === 'invoice')).toHaveLength(1);
  });

  it('refuses a sale beyond the credit limit naming balance, committed and total, unless overridden', async () => {
    const partner = await newPartner('Limited', { credit_limit: 300 });
    const first = await newInvoice({ partner: partner.id, line_items: [specLine] });
    await validate(first.id);
    await eventually(async () => expect((await balanceOf(partner.id)).partner.balance).toBe(258.75));
    const second = await newInvoice({ partner: partner.id, line_items: [taxIncludedLine] });
    const refused = await refusal(invoicing().validate({ org_id: '1', id: second.id }));
    expect(refused).toMatchObject({
      status: 400,
      code: 'credit_limit_exceeded',
      message: expect.stringContaining(
        'balance 258.75 + committed 0.00 + this invoice 115.00 = 373.75, 73.75 above the credit limit 300.00',
      ),
    });
    expect(await invoiceOf(second.id)).toMatchObject({ invoicestatus: 'draft', journals: [] });
    const forced = await validate(second.id, { override_credit_limit: true });
    expect(forced.invoice.invoicestatus).toBe('open');
    await eventually(async () => expect((await balanceOf(partner.id)).partner.balance).toBe(373.75));
  });

  it('lets only one of two sales racing for the last credit through', async () => {
    const partner = await newPartner('Racing', { credit_limit: 200 });
    const twoHundredLine = { product_id: tenthsLine.product_id, quantity: 2, price: 75, tax_rate: 0, tax_included: false };
    const [a, b] = [
      await newInvoice({ partner: partner.id, line_items: [twoHundredLine] }),
      await newInvoice({ partner: partner.id, line_items: [twoHundredLine] }),
    ];
    // Each sent once: the race is between the two first attempts.
    const once = sys.clientOf(1, { retry: false });
    const replies = await Promise.allSettled([a, b].map((inv) => once.invoicing.invoice.validate({ org_id: '1', id: inv.id })));
    expect(replies.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = replies.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(refused).toMatchObject([
      {
        name: 'ApiError',
        status: 400,
        code: 'credit_limit_exceeded',
        message: expect.stringContaining('balance 150.00 + committed 0.00 + this invoice 150.00'),
      },
    ]);
    const statuses = await Promise.all([a, b].map(async (inv) => (await invoiceOf(inv.id)).invoicestatus));
    expect(statuses.sort()).toEqual(['draft', 'open']);
    await eventually(async () =>
      expect((await balanceOf(partner.id)).partner).toMatchObject({ balance: 150, available_credit: 50, exposure: 150 }),
    );
  });

  it('answers refusals with 400s naming the cause, and cancels only drafts and proformas', async () => {
    const partner = await newPartner('Strict');
    // A type and a status the request types do not allow: sent raw, the gateway must refuse them too.
    const bad = await sys.post('/invoicing/invoice/new', {
      org_id: '1',
      invoicetype: 'invoice',
      partner: partner.id,
      invoicestatus: 'paid',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors.map((e: any) => e.field).sort()).toEqual(['invoicestatus', 'invoicetype']);
    const noFrequency = await refusal(
      invoicing().create({ org_id: '1', invoicetype: 'invoiceout', partner: partner.id, recurring: { enabled: true } }),
    );
    expect(noFrequency).toMatchObject({ status: 400, message: 'invalid recurring configuration: frequency is required' });
    const unknownPartner = await refusal(invoicing().create({ org_id: '1', invoicetype: 'invoiceout', partner: 999999 }));
    expect(unknownPartner).toMatchObject({ status: 400, code: 'not_found' });
    expect((await invoicing().list({ ...as7, partner_ids: [String(partner.id)] })).invoices).toEqual([]);

    const posted = await newInvoice({ partner: partner.id, line_items: [specLine] });
    await validate(posted.id);
    const cancel = await refusal(invoicing().cancel({ org_id: '1', id: posted.id }));
    expect(cancel).toMatchObject({
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining('only draft or proforma invoices can be cancelled'),
    });
    const proforma = await newInvoice({ partner: partner.id, invoicestatus: 'proforma' });
    expect((await invoicing().cancel({ ...as7, id: proforma.id })).message).toMatch(/cancelled/);
    const listed = await invoicing().list({ ...as7, partner_ids: [String(partner.id)], sort_by: 'number', sort_order: 'asc' });
    expect(listed.invoices.map((i) => i.invoicestatus)).toEqual(['open', 'cancelled']);
  });

  it('adds lines, lists with the partner object and shows overdue at once', async () => {
    const partner = await newPartner('Listed Co', { display_name: 'Listed' });
    const late = await newInvoice({ partner: partner.id, invoicedatetime: '2024-01-05T00:00:00', invoicedue: '2024-02-04' });
    const added = await invoicing().addLine({ ...as7, invoice_id: late.id, ...specLine, subtotal: 1, total: 1 });
    expect(added.line_item).toMatchObject({ invoiceid: late.id, subtotal: 225, tax_amount: 33.75, total: 258.75 });
    await validate(late.id);
    // The spec's list path, trailing slash included (the client uses the path without it).
    const listed = await eventually(async () => {
      const r = await okRaw('/invoicing/listinvoices/', { search_key: 'listed', status_filter: 'overdue', include_items: true });
      expect(r.invoices[0]?.partner.display_name).toBe('Listed');
      return r;
    });
    expect(listed.invoices).toHaveLength(1);
    expect(listed.invoices[0]).toMatchObject({
      id: late.id,
      orgid: 1,
      invoicestatus: 'overdue',
      invoicedatetime: '2024-01-05T00:00:00',
      invoicetotal: 258.75,
      due_amount: 258.75,
      creator: '7',
      partner: { id: partner.id, partnername: 'Listed Co', display_name: 'Listed', imageUrl: null },
      recurring: { enabled: false },
    });
    expect(listed.invoices[0].line_items).toHaveLength(1);
    expect(listed.pagination).toEqual({
      page_number: 1,
      page_size: 25,
      total_items: 1,
      total_pages: 1,
      has_next: false,
      has_previous: false,
    });
  });

  it('runs a recurring contract through the gateway', async () => {
    const partner = await newPartner('Subscriber');
    // Daily from yesterday: the parent bills yesterday, the first child today, the second tomorrow
    // (one period ahead of the schedule, the most a hand-made child may run ahead).
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const created = await invoicing().create({
      ...as7,
      invoicetype: 'invoiceout',
      partner: partner.id,
      invoicedatetime: `${day(-1)}T00:00:00`,
      line_items: [tenthsLine],
      recurring: { enabled: true, is_parent: true, frequency: 'daily', start_date: day(-1), occurrences_count: 2, status: 'active' },
    });
    expect(created.invoice.recurring).toMatchObject({
      enabled: true,
      is_parent: true,
      frequency: 'daily',
      next_run_date: day(0),
      status: 'active',
    });
    const id = created.invoice.id;
    // The recurring operations are accepted on every invoicing path: these two go raw to paths the client does not use.
    const paused = await okRaw('/invoicing/getinvoice', { pause_recurring: true, id });
    expect(paused).toEqual({
      message: expect.any(String),
      invoice: { id, invoicenumber: created.invoice.invoicenumber, recurring: expect.objectContaining({ status: 'paused' }) },
    });
    expect((await okRaw('/invoicing/listinvoices', { resume_recurring: true, id })).invoice.recurring.status).toBe('active');
    const first = await sys.client.invoicing.recurring.generate({ ...as7, id });
    expect(first.child).toMatchObject({ invoicedatetime: `${day(0)}T00:00:00`, invoicestatus: 'draft', invoicetotal: 0.3 });
    expect(first.invoice.recurring).toMatchObject({ next_run_date: day(1), generated_count: 1 });
    const second = await sys.client.invoicing.recurring.generate({ ...as7, id });
    expect(second.child.invoicedatetime).toBe(`${day(1)}T00:00:00`);
    expect(second.invoice.recurring).toMatchObject({ status: 'completed', next_run_date: null, generated_count: 2 });
    const refused = await refusal(sys.client.invoicing.recurring.cancel({ org_id: '1', id, cancellation_reason: 'late' }));
    expect(refused).toMatchObject({ status: 400, code: 'invalid_state' });
    const listed = await invoicing().list({ ...as7, partner_ids: [String(partner.id)] });
    expect(listed.invoices.map((i) => i.recurring.enabled).sort()).toEqual([false, false, true]);
  });

  it('gives 25 concurrent creates through the gateway 25 gapless numbers', async () => {
    const partner = await newPartner('Busy', { partner_type: 'vendor' }, 2);
    // Each sent once, so every create must succeed at its first attempt.
    const once = sys.clientOf(2, { retry: false });
    const replies = await Promise.all(
      Array.from({ length: 25 }, () =>
        once.invoicing.invoice.create({
          org_id: '2',
          invoicetype: 'invoicein',
          partner: partner.id,
          line_items: [{ ...tenthsLine, product_id: org2Product }],
        }),
      ),
    );
    expect(replies.map((r) => r.invoice.invoicenumber).sort()).toEqual(
      Array.from({ length: 25 }, (_, i) => `BILL-${String(i + 1).padStart(5, '0')}`),
    );
  });

  it('keeps organizations apart', async () => {
    const partner = await newPartner('Private');
    const mine = await newInvoice({ partner: partner.id, line_items: [specLine] });
    const org2 = sys.clientOf(2);
    expect(await refusal(org2.invoicing.invoice.validate({ org_id: '2', id: mine.id }))).toMatchObject({ status: 400, code: 'not_found' });
    expect(await refusal(org2.invoicing.invoice.balances({ org_id: '2', id: mine.id }))).toMatchObject({ status: 400, code: 'not_found' });
    expect(await refusal(org2.invoicing.invoice.create({ org_id: '2', invoicetype: 'invoiceout', partner: partner.id }))).toMatchObject({
      status: 400,
      code: 'not_found',
    });
    const theirs = await org2.invoicing.invoice.list({ org_id: '2', userid: '7', page_size: 100 });
    expect(theirs.invoices.map((i) => i.id)).not.toContain(mine.id);
    expect(theirs.invoices.every((i) => i.orgid === 2)).toBe(true);
    expect((await invoiceOf(mine.id)).invoicestatus).toBe('draft');
    expect(await refusal(org2.invoicing.invoice.list({ org_id: '1' }))).toMatchObject({ status: 403 });
  });
});
