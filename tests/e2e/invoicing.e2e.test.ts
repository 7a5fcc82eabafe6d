import type { EventEnvelope } from '@bo/contracts';
import { AmqpBus, createDb, createLogger, testing, type Knex } from '@bo/runtime';
import { newProducts } from '../support/catalog';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

// Every line names a catalog product; beforeAll creates them and puts their ids here.
const specLine = { product_id: 0 as number | string, product_name: 'Widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false };
const taxIncludedLine = { product_id: '', quantity: 1, price: 115, tax_rate: 15, tax_included: true };
const tenthsLine = { product_id: '', quantity: 3, price: 0.1, tax_rate: 0, tax_included: false };
let org2Product = 0;

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

  const ok = async (path: string, payload: Record<string, unknown>, org: 1 | 2 = 1) => {
    const res = await sys.post(path, { org_id: String(org), userid: '7', ...payload }, { org });
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${JSON.stringify(res.body)}`);
    expect(res.httpStatus).toBe(200);
    return res.body;
  };
  const newPartner = async (partnername: string, extra: Record<string, unknown> = {}, org: 1 | 2 = 1) =>
    (await ok('/crm/editpatner', { action: 'create', partnername, partner_type: 'customer', ...extra }, org)).partner as { id: number };
  const newInvoice = async (payload: Record<string, unknown>, org: 1 | 2 = 1) =>
    (await ok('/invoicing/invoice/new', { invoicetype: 'invoiceout', invoicedatetime: '2025-06-01T10:00:00', ...payload }, org)).invoice;
  const balanceOf = async (partnerId: number) => ok('/crm/partners', { partner_id: partnerId, include_transactions: true });

  it('creates, validates and pays an invoice, and the partner balance follows', async () => {
    const partner = await newPartner('Acme Corp');
    const invoice = await newInvoice({ partner: String(partner.id), invoicetotal: 1, line_items: [specLine, taxIncludedLine, tenthsLine] });
    expect(invoice).toMatchObject({ invoicenumber: 'INV-00001', invoicestatus: 'draft', subtotal: 325.3, tax_amount: 48.75, invoicetotal: 374.05, userid: 7 });

    const validated = await ok('/invoicing/invoice/new', { validate_invoice: true, id: invoice.id });
    expect(validated.invoice).toMatchObject({ id: invoice.id, invoicestatus: 'open', journal_entry_id: expect.any(Number) });
    const afterValidation = await eventually(async () => {
      const b = await balanceOf(partner.id);
      expect(b.partner.balance).toBe(374.05);
      return b;
    });
    expect(afterValidation.partner.available_credit).toBe(-374.05);
    expect(afterValidation.transactions).toEqual([{ id: expect.any(Number), type: 'invoice', document_number: 'INV-00001', date: '2025-06-01', amount: 374.05, paid: 0, due: 374.05 }]);

    const paid = await ok('/invoicing/invoice/new', { register_payment: true, id: invoice.id, amount: 74.05, payment_date: '2025-06-10', journal: 'Bank' });
    expect(paid.invoice).toMatchObject({ invoicestatus: 'open', amount_paid: 74.05, due_amount: 300 });
    const afterPayment = await eventually(async () => {
      const b = await balanceOf(partner.id);
      expect(b.partner.balance).toBe(300);
      return b;
    });
    expect(afterPayment.transactions.map((t: any) => [t.type, t.document_number, t.date, t.amount, t.paid, t.due])).toEqual([
      ['invoice', 'INV-00001', '2025-06-01', 374.05, 74.05, 300],
      ['payment', 'INV-00001', '2025-06-10', 74.05, 74.05, 0],
    ]);

    const balances = await ok('/invoicing/getinvoice', { id: invoice.id, include_items: true });
    expect(balances.invoices[0]).toMatchObject({ id: invoice.id, invoicenumber: 'INV-00001', invoicetotal: 374.05, amount_paid: 74.05, due_amount: 300 });
    expect(balances.invoices[0].journals).toHaveLength(1);
    expect(balances.invoices[0].payjournals).toEqual([{ id: expect.any(Number), journalname: 'Bank', journaldate: '2025-06-10', amount: 74.05 }]);
    expect(balances.invoices[0].line_items.map((l: any) => l.total)).toEqual([258.75, 115, 0.3]);
  });

  it('lowers the balance with a credit note and its refund', async () => {
    const partner = await newPartner('Credited Ltd');
    const invoice = await newInvoice({ partner: partner.id, line_items: [specLine] });
    await ok('/invoicing/invoice/new', { validate_invoice: true, id: invoice.id });
    const credit = await newInvoice({ partner: partner.id, invoicetype: 'creditout', line_items: [taxIncludedLine] });
    expect(credit.invoicenumber).toBe('CRN-00001');
    await ok('/invoicing/invoice/new', { validate_invoice: true, id: credit.id });
    await eventually(async () => expect((await balanceOf(partner.id)).partner.balance).toBe(143.75));
    // Refunding the credit note settles it: the balance goes back up by what was refunded.
    await ok('/invoicing/invoice/new', { register_payment: true, id: credit.id, amount: 115, payment_date: '2025-06-20' });
    const b = await eventually(async () => {
      const r = await balanceOf(partner.id);
      expect(r.partner.balance).toBe(258.75);
      return r;
    });
    expect(b.transactions.map((t: any) => [t.type, t.document_number, t.amount, t.paid, t.due])).toEqual([
      ['invoice', invoice.invoicenumber, 258.75, 0, 258.75],
      ['credit_note', 'CRN-00001', 115, 115, 0],
      ['payment', 'CRN-00001', 115, 115, 0],
    ]);
    const listed = await ok('/invoicing/listinvoices/', { partner_ids: [String(partner.id)], sort_by: 'number', sort_order: 'asc' });
    expect(listed.invoices.map((i: any) => [i.invoicenumber, i.invoicestatus, i.due_amount])).toEqual([
      ['CRN-00001', 'paid', 0],
      [invoice.invoicenumber, 'open', 258.75],
    ]);
  });

  it('moves the balance once when the same event is delivered twice', async () => {
    const partner = await newPartner('Twice Inc');
    const invoice = await newInvoice({ partner: partner.id, line_items: [tenthsLine] });
    await ok('/invoicing/invoice/new', { validate_invoice: true, id: invoice.id });
    await eventually(async () => expect((await balanceOf(partner.id)).partner.balance).toBe(0.3));
    const row = await invoicingDb('outbox').where({ type: 'invoicing.invoice.validated' }).whereRaw(`(envelope->'data'->>'invoice_id')::int = ?`, [invoice.id]).first();
    const validatedEvent = row.envelope as EventEnvelope;
    await bus.publish(validatedEvent);
    await bus.publish(validatedEvent);
    // A payment published after the duplicates: once it shows, the duplicates have been seen.
    await ok('/invoicing/invoice/new', { register_payment: true, id: invoice.id, amount: 0.1, payment_date: '2025-06-02' });
    const b = await eventually(async () => {
      const r = await balanceOf(partner.id);
      expect(r.transactions).toHaveLength(2);
      return r;
    });
    expect(b.partner.balance).toBe(0.2);
    expect(b.transactions.filter((t: any) => t.type === 'invoice')).toHaveLength(1);
  });

  it('refuses a sale beyond the credit limit naming balance, committed and total, unless overridden', async () => {
    const partner = await newPartner('Limited', { credit_limit: 300 });
    const first = await newInvoice({ partner: partner.id, line_items: [specLine] });
    await ok('/invoicing/invoice/new', { validate_invoice: true, id: first.id });
    await eventually(async () => expect((await balanceOf(partner.id)).partner.balance).toBe(258.75));
    const second = await newInvoice({ partner: partner.id, line_items: [taxIncludedLine] });
    const refused = await sys.post('/invoicing/invoice/new', { org_id: '1', validate_invoice: true, id: second.id });
    expect(refused).toMatchObject({ httpStatus: 400, statusCode: 400, body: { code: 'credit_limit_exceeded', message: expect.stringContaining('balance 258.75 + committed 0.00 + this invoice 115.00 = 373.75, above the credit limit 300.00') } });
    expect((await ok('/invoicing/getinvoice', { id: second.id })).invoices[0]).toMatchObject({ invoicestatus: 'draft', journals: [] });
    const forced = await ok('/invoicing/invoice/new', { validate_invoice: true, id: second.id, override_credit_limit: true });
    expect(forced.invoice.invoicestatus).toBe('open');
    await eventually(async () => expect((await balanceOf(partner.id)).partner.balance).toBe(373.75));
  });

  it('lets only one of two sales racing for the last credit through', async () => {
    const partner = await newPartner('Racing', { credit_limit: 200 });
    const twoHundredLine = { product_id: tenthsLine.product_id, quantity: 2, price: 75, tax_rate: 0, tax_included: false };
    const [a, b] = [await newInvoice({ partner: partner.id, line_items: [twoHundredLine] }), await newInvoice({ partner: partner.id, line_items: [twoHundredLine] })];
    const replies = await Promise.all([a, b].map((inv) => sys.post('/invoicing/invoice/new', { org_id: '1', validate_invoice: true, id: inv.id })));
    expect(replies.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    expect(replies.find((r) => r.statusCode === 400)?.body).toMatchObject({ code: 'credit_limit_exceeded', message: expect.stringContaining('balance 150.00 + committed 0.00 + this invoice 150.00') });
    const statuses = await Promise.all([a, b].map(async (inv) => (await ok('/invoicing/getinvoice', { id: inv.id })).invoices[0].invoicestatus));
    expect(statuses.sort()).toEqual(['draft', 'open']);
    await eventually(async () => expect((await balanceOf(partner.id)).partner).toMatchObject({ balance: 150, available_credit: 50, exposure: 150 }));
  });

  it('answers refusals with 400s naming the cause, and cancels only drafts and proformas', async () => {
    const partner = await newPartner('Strict');
    const bad = await sys.post('/invoicing/invoice/new', { org_id: '1', invoicetype: 'invoice', partner: partner.id, invoicestatus: 'paid' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors.map((e: any) => e.field).sort()).toEqual(['invoicestatus', 'invoicetype']);
    const noFrequency = await sys.post('/invoicing/invoice/new', { org_id: '1', invoicetype: 'invoiceout', partner: partner.id, recurring: { enabled: true } });
    expect(noFrequency).toMatchObject({ statusCode: 400, body: { message: 'invalid recurring configuration: frequency is required' } });
    const unknownPartner = await sys.post('/invoicing/invoice/new', { org_id: '1', invoicetype: 'invoiceout', partner: 999999 });
    expect(unknownPartner).toMatchObject({ statusCode: 400, body: { code: 'not_found' } });
    expect((await ok('/invoicing/listinvoices', { partner_ids: [String(partner.id)] })).invoices).toEqual([]);

    const posted = await newInvoice({ partner: partner.id, line_items: [specLine] });
    await ok('/invoicing/invoice/new', { validate_invoice: true, id: posted.id });
    const cancel = await sys.post('/invoicing/invoice/new', { org_id: '1', cancel_invoice: true, id: posted.id });
    expect(cancel).toMatchObject({ statusCode: 400, body: { code: 'invalid_state', message: expect.stringContaining('only draft or proforma invoices can be cancelled') } });
    const proforma = await newInvoice({ partner: partner.id, invoicestatus: 'proforma' });
    expect((await ok('/invoicing/invoice/new', { cancel_invoice: true, id: proforma.id })).message).toMatch(/cancelled/);
    const listed = await ok('/invoicing/listinvoices', { partner_ids: [String(partner.id)], sort_by: 'number', sort_order: 'asc' });
    expect(listed.invoices.map((i: any) => i.invoicestatus)).toEqual(['open', 'cancelled']);
  });

  it('adds lines, lists with the partner object and shows overdue at once', async () => {
    const partner = await newPartner('Listed Co', { display_name: 'Listed' });
    const late = await newInvoice({ partner: partner.id, invoicedatetime: '2024-01-05T00:00:00', invoicedue: '2024-02-04' });
    const added = await ok('/invoicing/addline', { invoice_id: late.id, ...specLine, subtotal: 1, total: 1 });
    expect(added.line_item).toMatchObject({ invoiceid: late.id, subtotal: 225, tax_amount: 33.75, total: 258.75 });
    await ok('/invoicing/invoice/new', { validate_invoice: true, id: late.id });
    const listed = await eventually(async () => {
      const r = await ok('/invoicing/listinvoices/', { search_key: 'listed', status_filter: 'overdue', include_items: true });
      expect(r.invoices[0]?.partner.display_name).toBe('Listed');
      return r;
    });
    expect(listed.invoices).toHaveLength(1);
    expect(listed.invoices[0]).toMatchObject({
      id: late.id, orgid: 1, invoicestatus: 'overdue', invoicedatetime: '2024-01-05T00:00:00', invoicetotal: 258.75, due_amount: 258.75, creator: '7',
      partner: { id: partner.id, partnername: 'Listed Co', display_name: 'Listed', imageUrl: null }, recurring: { enabled: false },
    });
    expect(listed.invoices[0].line_items).toHaveLength(1);
    expect(listed.pagination).toEqual({ page_number: 1, page_size: 25, total_items: 1, total_pages: 1, has_next: false, has_previous: false });
  });

  it('runs a recurring contract through the gateway', async () => {
    const partner = await newPartner('Subscriber');
    // Daily from yesterday: the parent bills yesterday, the first child today, the second tomorrow
    // (one period ahead of the schedule, the most a hand-made child may run ahead).
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const created = await ok('/invoicing/invoice/new', {
      invoicetype: 'invoiceout', partner: partner.id, invoicedatetime: `${day(-1)}T00:00:00`, line_items: [tenthsLine],
      recurring: { enabled: true, is_parent: true, frequency: 'daily', start_date: day(-1), occurrences_count: 2, status: 'active' },
    });
    expect(created.invoice.recurring).toMatchObject({ enabled: true, is_parent: true, frequency: 'daily', next_run_date: day(0), status: 'active' });
    const id = created.invoice.id;
    // The recurring operations are accepted on every invoicing path.
    const paused = await ok('/invoicing/getinvoice', { pause_recurring: true, id });
    expect(paused).toEqual({ message: expect.any(String), invoice: { id, invoicenumber: created.invoice.invoicenumber, recurring: expect.objectContaining({ status: 'paused' }) } });
    expect((await ok('/invoicing/listinvoices', { resume_recurring: true, id })).invoice.recurring.status).toBe('active');
    const first = await ok('/invoicing/invoice/new', { generate_child_invoice: true, id });
    expect(first.child).toMatchObject({ invoicedatetime: `${day(0)}T00:00:00`, invoicestatus: 'draft', invoicetotal: 0.3 });
    expect(first.invoice.recurring).toMatchObject({ next_run_date: day(1), generated_count: 1 });
    const second = await ok('/invoicing/invoice/new', { generate_child_invoice: true, id });
    expect(second.child.invoicedatetime).toBe(`${day(1)}T00:00:00`);
    expect(second.invoice.recurring).toMatchObject({ status: 'completed', next_run_date: null, generated_count: 2 });
    const refused = await sys.post('/invoicing/invoice/new', { org_id: '1', cancel_recurring: true, id, cancellation_reason: 'late' });
    expect(refused).toMatchObject({ statusCode: 400, body: { code: 'invalid_state' } });
    const listed = await ok('/invoicing/listinvoices', { partner_ids: [String(partner.id)] });
    expect(listed.invoices.map((i: any) => i.recurring.enabled).sort()).toEqual([false, false, true]);
  });

  it('gives 25 concurrent creates through the gateway 25 gapless numbers', async () => {
    const partner = await newPartner('Busy', { partner_type: 'vendor' }, 2);
    const replies = await Promise.all(
      Array.from({ length: 25 }, () => sys.post('/invoicing/invoice/new', { org_id: '2', invoicetype: 'invoicein', partner: partner.id, line_items: [{ ...tenthsLine, product_id: org2Product }] }, { org: 2 })),
    );
    expect(replies.map((r) => r.statusCode)).toEqual(Array(25).fill(200));
    expect(replies.map((r) => r.body.invoice.invoicenumber).sort()).toEqual(Array.from({ length: 25 }, (_, i) => `BILL-${String(i + 1).padStart(5, '0')}`));
  });

  it('keeps organizations apart', async () => {
    const partner = await newPartner('Private');
    const mine = await newInvoice({ partner: partner.id, line_items: [specLine] });
    const other = await sys.post('/invoicing/invoice/new', { org_id: '2', validate_invoice: true, id: mine.id }, { org: 2 });
    expect(other).toMatchObject({ statusCode: 400, body: { code: 'not_found' } });
    const read = await sys.post('/invoicing/getinvoice', { org_id: '2', id: mine.id }, { org: 2 });
    expect(read).toMatchObject({ statusCode: 400, body: { code: 'not_found' } });
    const theirPartnerUse = await sys.post('/invoicing/invoice/new', { org_id: '2', invoicetype: 'invoiceout', partner: partner.id }, { org: 2 });
    expect(theirPartnerUse).toMatchObject({ statusCode: 400, body: { code: 'not_found' } });
    const theirs = await ok('/invoicing/listinvoices', { page_size: 100 }, 2);
    expect(theirs.invoices.map((i: any) => i.id)).not.toContain(mine.id);
    expect(theirs.invoices.every((i: any) => i.orgid === 2)).toBe(true);
    expect((await ok('/invoicing/getinvoice', { id: mine.id })).invoices[0].invoicestatus).toBe('draft');
    const forbidden = await sys.post('/invoicing/listinvoices', { org_id: '1' }, { org: 2 });
    expect(forbidden.statusCode).toBe(403);
  });
});
