import { formatDate, formatDateTime, invoiceIdOfReference } from '@bo/kernel';
import { NotAsDecided, OPERATION_KEYS, storeAlone } from '@bo/runtime';
import { toBreakdownRecord } from '@bo/billing';
import { addLineAlone, loadAddLine } from '../src/invoice/line.repository';
import { decideAddLine } from '../src/invoice/decide-add-line';
import { decideCancellation } from '../src/invoice/decide-cancellation';
import type { LineValues } from '../src/invoice/decide-new-invoice';
import { toLineRecord } from '../src/invoice/invoice.record';
import { cancellationAlone, readInvoiceAsRead } from '../src/invoice/invoice.repository';
import * as testing from '@bo/testkit';
import { body, specLine, startWithFakePartners, taxIncludedLine, tenthsLine, type FakePartner } from './fixtures';

const partnersTable: FakePartner[] = [
  { org: 1, id: 10, partnername: 'Acme Corp', credit_limit: 0, balance: 0 },
  { org: 1, id: 11, partnername: 'Globex', credit_limit: 1000, balance: 800 },
  { org: 2, id: 20, partnername: 'Initech', credit_limit: 0, balance: 0 },
  { org: 3, id: 30, partnername: 'Busy', credit_limit: 0, balance: 0 },
  { org: 1, id: 12, partnername: 'Gone Soon', credit_limit: 0, balance: 0 },
  { org: 1, id: 13, partnername: 'Stretched', credit_limit: 200, balance: 0 },
  { org: 1, id: 14, partnername: 'Committed', credit_limit: 300, balance: 50 },
];

describe('invoicing service: invoices', () => {
  let svc: testing.TestService;
  let partners: { balanceDelayMs: number };
  let partnerCalls: string[];
  let events: Awaited<ReturnType<testing.TestService['collect']>>;
  let catalog: testing.CatalogStub;

  beforeAll(async () => {
    ({ svc, state: partners, calls: partnerCalls, catalog } = await startWithFakePartners(partnersTable));
    events = await svc.collect(['invoicing.invoice.*']);
  });
  const afterAllStops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const stop of afterAllStops) await stop();
    await svc?.stop();
  });

  const create = (payload: Record<string, unknown>, org = 1) =>
    svc.call('invoicing.invoice.create', { userid: '5', invoicetype: 'invoiceout', partner: 10, ...payload }, org);
  const invoiceCount = async (org = 1) =>
    Number((await svc.db('invoices').where({ org_id: org }).count<{ c: number }[]>({ c: '*' }))[0]!.c);
  const stored = (id: number) => svc.db('invoices').where({ id }).first();
  const eventsOf = (type: string, invoiceId: number) => events.filter((e) => e.type === type && e.data.invoice_id === invoiceId);
  const waitFor = (check: () => boolean) => testing.waitUntil(check);

  it('computes every amount on the server, whatever totals the client sent', async () => {
    const reply = body(
      await create({
        invoicedatetime: '2025-03-01T10:00:00',
        invoicedue: '2099-03-31',
        subtotal: 1,
        tax_amount: 1,
        invoicetotal: 999,
        line_items: [{ ...specLine, subtotal: 1, tax_amount: 2, total: 3 }, taxIncludedLine, tenthsLine],
      }),
    );
    const inv = reply.invoice;
    expect(inv).toMatchObject({
      orgid: 1,
      partner: '10',
      invoicenumber: 'INV-00001',
      invoicetype: 'invoiceout',
      invoicestatus: 'draft',
      userid: 5,
      invoicedatetime: '2025-03-01T10:00:00',
      invoicedue: '2099-03-31',
      subtotal: 325.3,
      tax_amount: 48.75,
      invoicetotal: 374.05,
      due_amount: 374.05,
    });
    expect(inv.line_items.map((l: any) => [l.subtotal, l.tax_amount, l.total])).toEqual([
      [225, 33.75, 258.75],
      [100, 15, 115],
      [0.3, 0, 0.3],
    ]);
    const row = await stored(inv.id);
    expect([row.subtotal, row.tax_amount, row.invoicetotal]).toEqual(['325.30', '48.75', '374.05']);
    await waitFor(() => eventsOf('invoicing.invoice.created', inv.id).length === 1);
    expect(eventsOf('invoicing.invoice.created', inv.id)[0]!.data).toMatchObject({
      invoicenumber: 'INV-00001',
      invoicetotal: 374.05,
      partner_id: 10,
      invoicestatus: 'draft',
    });
  });

  it('numbers each type in its own series and keeps a supplied number', async () => {
    const numbers = [];
    for (const invoicetype of ['creditout', 'invoicein', 'creditin'])
      numbers.push(body(await create({ invoicetype })).invoice.invoicenumber);
    expect(numbers).toEqual(['CRN-00001', 'BILL-00001', 'RFD-00001']);
    expect(body(await create({ invoicenumber: 'INV-00002', invoicestatus: 'proforma' })).invoice).toMatchObject({
      invoicenumber: 'INV-00002',
      invoicestatus: 'proforma',
    });
    // The series skips a number taken by hand.
    expect(body(await create({})).invoice.invoicenumber).toBe('INV-00003');
  });

  it('refuses a duplicate number, a status other than draft or proforma, an unknown partner and a due date before the invoice date, changing nothing', async () => {
    const before = await invoiceCount();
    const dup = await create({ invoicenumber: 'INV-00001' });
    expect(dup).toMatchObject({ ok: false, status: 400, code: 'duplicate' });
    const open = await create({ invoicestatus: 'open' });
    expect(open).toMatchObject({ ok: false, status: 400, code: 'validation_failed' });
    expect(!open.ok && open.errors?.[0]?.field).toBe('invoicestatus');
    expect(await create({ partner: 99 })).toMatchObject({ ok: false, code: 'not_found', message: 'Partner 99 not found' });
    // Another organization's partner does not exist here.
    expect(await create({ partner: 20 })).toMatchObject({ ok: false, code: 'not_found' });
    const due = await create({ invoicedatetime: '2025-03-10T00:00:00', invoicedue: '2025-03-01' });
    expect(due).toMatchObject({ ok: false, code: 'validation_failed' });
    expect(await invoiceCount()).toBe(before);
  });

  it('gives 25 concurrent creates 25 distinct, gapless numbers, stored and announced as answered', async () => {
    const replies = await Promise.all(Array.from({ length: 25 }, () => create({ partner: 30, line_items: [tenthsLine] }, 3)));
    const invoices = replies.map((r) => body(r).invoice as { id: number; invoicenumber: string });
    expect(invoices.map((i) => i.invoicenumber).sort()).toEqual(
      Array.from({ length: 25 }, (_, i) => `INV-${String(i + 1).padStart(5, '0')}`),
    );
    // The number is written last (numberDocument): the row, the reply and the event all carry it, no stand-in.
    const rows = await svc.db('invoices').where({ org_id: 3 }).select<Array<{ id: number; invoicenumber: string }>>('id', 'invoicenumber');
    expect(new Map(rows.map((r) => [r.id, r.invoicenumber]))).toEqual(new Map(invoices.map((i) => [i.id, i.invoicenumber])));
    await waitFor(() => invoices.every((i) => eventsOf('invoicing.invoice.created', i.id).length === 1));
    for (const i of invoices) expect(eventsOf('invoicing.invoice.created', i.id)[0]?.data.invoicenumber).toBe(i.invoicenumber);
  });

  it('adds lines while draft, recomputing the totals, and refuses them once posted', async () => {
    const inv = body(await create({ line_items: [specLine] })).invoice;
    const added = body(await svc.call('invoicing.invoice.add_line', { invoice_id: inv.id, ...taxIncludedLine, subtotal: 5, total: 5 }));
    expect(added.line_item).toMatchObject({
      invoiceid: inv.id,
      product_id: '8',
      quantity: 1,
      price: 115,
      discount: 0,
      tax_rate: 15,
      subtotal: 100,
      tax_amount: 15,
      total: 115,
    });
    expect(added.invoice).toEqual({
      id: inv.id,
      subtotal: 325,
      tax_amount: 48.75,
      invoicetotal: 373.75,
      tax_breakdown: [
        { tax_category: 'S', tax_rate: 15, taxable_amount: 325, tax_amount: 48.75, exemption_reason: null, exemption_code: null },
      ],
      vat_total: 48.75,
      rounding_amount: 0,
    });
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    const refused = await svc.call('invoicing.invoice.add_line', { invoice_id: inv.id, ...tenthsLine });
    expect(refused).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
    expect(await svc.db('invoice_lines').where({ invoice_id: inv.id }).count<{ c: number }[]>({ c: '*' })).toEqual([{ c: 2 }]);
    expect((await stored(inv.id)).invoicetotal).toBe('373.75');
  });

  it('validates into a balanced journal entry and an event, once', async () => {
    const inv = body(
      await create({ invoicedatetime: '2025-04-02T09:30:00', line_items: [specLine], tradeaccount: '1210 Receivables EU' }),
    ).invoice;
    const v = body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    expect(v.invoice).toMatchObject({ id: inv.id, invoicestatus: 'open', invoicetotal: 258.75 });
    const entry = await svc.db('journal_entries').where({ id: v.invoice.journal_entry_id }).first();
    expect(entry).toMatchObject({
      invoice_id: inv.id,
      kind: 'invoice',
      journalname: 'Sales Journal',
      journaldate: '2025-04-02',
      amount: '258.75',
    });
    const lines = await svc.db('journal_lines').where({ entry_id: entry.id }).orderBy('id').select('account', 'debit', 'credit');
    expect(lines).toEqual([
      { account: '1210 Receivables EU', debit: '258.75', credit: '0.00' },
      { account: '4000 Sales Revenue', debit: '0.00', credit: '225.00' },
      { account: '2200 Tax Payable', debit: '0.00', credit: '33.75' },
    ]);
    await waitFor(() => eventsOf('invoicing.invoice.validated', inv.id).length === 1);
    expect(eventsOf('invoicing.invoice.validated', inv.id)[0]!.data).toMatchObject({
      invoicenumber: inv.invoicenumber,
      invoicetype: 'invoiceout',
      partner_id: 10,
      invoicetotal: 258.75,
      journal_entry_id: entry.id,
      invoicedatetime: '2025-04-02T09:30:00',
    });
    // The event and the reply tell the posted invoice as stored (the store writes it with the commit, unread).
    const row = await stored(inv.id);
    expect(eventsOf('invoicing.invoice.validated', inv.id)[0]!.data).toMatchObject({
      version: row.version,
      validated_at: formatDateTime(row.validated_at),
      invoicedue: formatDate(row.invoicedue),
      subtotal: Number(row.subtotal),
      tax_amount: Number(row.tax_amount),
      accounting_total: Number(row.invoicetotal),
    });
    expect(v.invoice).toEqual({
      id: row.id,
      invoicenumber: row.invoicenumber,
      payment_reference: row.payment_reference,
      invoicestatus: row.invoicestatus,
      journal_entry_id: entry.id,
      invoicetotal: Number(row.invoicetotal),
      due_amount: Number(row.invoicetotal),
    });
    const again = await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id });
    expect(again).toMatchObject({ ok: false, code: 'invalid_state' });
    expect(await svc.db('journal_entries').where({ invoice_id: inv.id })).toHaveLength(1);
  });

  it('gives a customer invoice its payment reference at validation, found again by it, and a vendor bill none', async () => {
    const inv = body(await create({ invoicedatetime: '2025-04-03T09:30:00', line_items: [specLine] })).invoice;
    expect(inv.payment_reference).toBeNull();
    const v = body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    const reference: string = v.invoice.payment_reference;
    expect(reference).toMatch(/^RF[0-9]{2}[0-9]+$/);
    expect(invoiceIdOfReference(reference)).toBe(inv.id);
    expect((await stored(inv.id)).payment_reference).toBe(reference);
    expect(body(await svc.call('invoicing.invoice.balances', { id: inv.id })).invoices[0].payment_reference).toBe(reference);
    // Printed in groups of four, as a payer quotes it.
    const printed = reference.replace(/(.{4})(?=.)/g, '$1 ');
    const found = body(await svc.call('invoicing.invoice.list', { search_key: printed })).invoices;
    expect(found.map((i: { id: number; payment_reference: string }) => [i.id, i.payment_reference])).toEqual([[inv.id, reference]]);

    const bill = body(await create({ invoicetype: 'invoicein', invoicedatetime: '2025-04-03T09:30:00', line_items: [specLine] })).invoice;
    const billed = body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: bill.id }));
    expect(billed.invoice.payment_reference).toBeNull();
  });

  it('takes lines on a proforma and validates it into an open invoice', async () => {
    const proforma = body(await create({ invoicestatus: 'proforma' })).invoice;
    const added = body(await svc.call('invoicing.invoice.add_line', { invoice_id: proforma.id, ...tenthsLine }));
    expect(added.invoice).toEqual({
      id: proforma.id,
      subtotal: 0.3,
      tax_amount: 0,
      invoicetotal: 0.3,
      tax_breakdown: [{ tax_category: 'Z', tax_rate: 0, taxable_amount: 0.3, tax_amount: 0, exemption_reason: null, exemption_code: null }],
      vat_total: 0,
      rounding_amount: 0,
    });
    const v = body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: proforma.id }));
    expect(v.invoice).toMatchObject({ invoicestatus: 'open', invoicetotal: 0.3, due_amount: 0.3 });
    expect(await svc.db('journal_entries').where({ invoice_id: proforma.id })).toHaveLength(1);
  });

  it('refuses to validate an invoice without lines', async () => {
    const inv = body(await create({})).invoice;
    expect(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
      message: expect.stringMatching(/no lines/),
    });
    expect((await stored(inv.id)).invoicestatus).toBe('draft');
  });

  it('refuses a sale beyond the credit limit, naming balance, committed and total, unless overridden', async () => {
    // Globex: limit 1000, balance 800, so 200.00 available; the invoice is 258.75.
    const inv = body(await create({ partner: 11, line_items: [specLine] })).invoice;
    const refused = await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id });
    expect(refused).toMatchObject({
      ok: false,
      status: 400,
      code: 'credit_limit_exceeded',
      message: expect.stringContaining(
        'balance 800.00 + committed 0.00 + this invoice 258.75 = 1058.75, 58.75 above the credit limit 1000.00',
      ),
    });
    expect((await stored(inv.id)).invoicestatus).toBe('draft');
    expect(await svc.db('journal_entries').where({ invoice_id: inv.id })).toHaveLength(0);
    const forced = body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id, override_credit_limit: true }));
    expect(forced.invoice.invoicestatus).toBe('open');
    // A bill to the same partner is not a sale on credit: no check.
    const bill = body(await create({ partner: 11, invoicetype: 'invoicein', line_items: [specLine] })).invoice;
    expect(body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: bill.id })).invoice.invoicestatus).toBe('open');
  });

  it('lets only one of two sales racing for the last credit through, and counts its own postings before the partners ledger does', async () => {
    // Stretched: limit 200. The fake partners service keeps answering balance 0, as the real one does
    // until it has applied the validated event. Each sale of 115.00 fits alone; both together do not.
    const a = body(await create({ partner: 13, line_items: [taxIncludedLine] })).invoice;
    const b = body(await create({ partner: 13, line_items: [taxIncludedLine] })).invoice;
    const replies = await Promise.all([a, b].map((inv) => svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id })));
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    const refused = replies.find((r) => !r.ok);
    expect(refused).toMatchObject({
      status: 400,
      code: 'credit_limit_exceeded',
      message: expect.stringContaining('balance 115.00 + committed 0.00 + this invoice 115.00'),
    });
    const rows = await svc.db('invoices').whereIn('id', [a.id, b.id]).orderBy('invoicestatus').pluck('invoicestatus');
    expect(rows).toEqual(['draft', 'open']);
    expect(await svc.db('journal_entries').whereIn('invoice_id', [a.id, b.id])).toHaveLength(1);

    // Asked again later, the second is refused just the same: the partners service still says 0,
    // but the sale posted here counts at once.
    const loser = await svc.db('invoices').whereIn('id', [a.id, b.id]).where({ invoicestatus: 'draft' }).first();
    expect(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: loser.id })).toMatchObject({
      ok: false,
      code: 'credit_limit_exceeded',
    });
    // Once the first sale is paid nothing is owed any more, and the second fits.
    const winner = await svc.db('invoices').whereIn('id', [a.id, b.id]).where({ invoicestatus: 'open' }).first();
    body(await svc.call('invoicing.invoice.register_payment', { register_payment: true, id: winner.id, amount: 115 }));
    expect(body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: loser.id })).invoice.invoicestatus).toBe('open');
  });

  it('counts what converted quotations of the partner have committed, but not the document itself', async () => {
    // Committed: limit 300, balance 50. A converted quotation's draft invoice of 115 commits credit.
    const converted = body(
      await svc.call('invoicing.invoice.create_from_source', {
        invoicetype: 'invoiceout',
        partner: 14,
        sourcetype: 'quotation',
        sourceid: '901',
        sourcenumber: 'QUO-901',
        line_items: [taxIncludedLine],
      }),
    ).invoice;
    const sale = body(await create({ partner: 14, line_items: [taxIncludedLine, taxIncludedLine] })).invoice;
    // 50 + 115 + 230 = 395 > 300.
    expect(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: sale.id })).toMatchObject({
      ok: false,
      code: 'credit_limit_exceeded',
      message: expect.stringContaining(
        'balance 50.00 + committed 115.00 + this invoice 230.00 = 395.00, 95.00 above the credit limit 300.00',
      ),
    });
    // The converted invoice itself does not count twice: 50 + 0 + 115 fits.
    expect(body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: converted.id })).invoice.invoicestatus).toBe(
      'open',
    );
  });

  it('asks for the credit with no lock held: a slow partners service does not stall other writes to the invoice', async () => {
    const inv = body(await create({ partner: 11, line_items: [tenthsLine] })).invoice;
    partners.balanceDelayMs = 1500;
    try {
      const order: string[] = [];
      const asked = partnerCalls.length;
      const validating = svc
        .call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id })
        .then((r) => (order.push('validate'), r));
      // Sent once the validation is waiting on partners: it must not queue behind it.
      await waitFor(() => partnerCalls.length > asked);
      const added = await svc
        .call('invoicing.invoice.add_line', { invoice_id: inv.id, ...tenthsLine })
        .then((r) => (order.push('add_line'), r));
      const validated = await validating;
      expect(order).toEqual(['add_line', 'validate']);
      expect(body(added).invoice.invoicetotal).toBe(0.6);
      // The validation locked the invoice after the line came in, so it posted the new total.
      expect(body(validated).invoice).toMatchObject({ invoicestatus: 'open', invoicetotal: 0.6 });
    } finally {
      partners.balanceDelayMs = 0;
    }
  });

  it('adds a line as one statement on an unlocked read, answering what it stored; a draft changed since goes the locked way', async () => {
    const draft = body(await create({ line_items: [specLine] })).invoice;
    const linesOf = () => svc.db('invoice_lines').where({ invoice_id: draft.id }).orderBy('id');
    const line: LineValues = {
      product_id: '9',
      variant_id: null,
      location_id: null,
      sku: null,
      uom: null,
      quantity: '3',
      price: '0.1',
      tax_rate: '0',
      tax_included: false,
    };
    // Read, then the draft changes: the line decided on the read is not added.
    const loaded = await loadAddLine(svc.db, 1, draft.id);
    await svc.db('invoices').where({ id: draft.id }).update({ updated_at: svc.db.fn.now() });
    const alone = { ...addLineAlone(decideAddLine(loaded, line), loaded.read), events: [], reply: {} };
    await expect(storeAlone(svc.db, alone, undefined, { ok: true, status: 200, body: {} })).rejects.toBeInstanceOf(NotAsDecided);
    expect(await linesOf()).toHaveLength(1);

    // Through the service: the line and the figures answered are the ones stored.
    const added = body(await svc.call('invoicing.invoice.add_line', { invoice_id: draft.id, ...tenthsLine }));
    const lines = await linesOf();
    expect(lines).toHaveLength(2);
    expect(added.line_item).toEqual(toLineRecord(lines[1]));
    const row = await stored(draft.id);
    expect(added.invoice).toEqual({
      id: draft.id,
      subtotal: Number(row.subtotal),
      tax_amount: Number(row.tax_amount),
      invoicetotal: Number(row.invoicetotal),
      vat_total: Number(row.vat_total),
      rounding_amount: Number(row.rounding_amount),
      tax_breakdown: row.tax_breakdown.map(toBreakdownRecord),
    });
  });

  it('cancels drafts and proformas only, saying why otherwise', async () => {
    const draft = body(await create({ line_items: [specLine] })).invoice;
    const proforma = body(await create({ invoicestatus: 'proforma' })).invoice;
    expect(body(await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: draft.id })).invoice.invoicestatus).toBe(
      'cancelled',
    );
    expect(body(await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: proforma.id })).invoice.invoicestatus).toBe(
      'cancelled',
    );
    await waitFor(() => eventsOf('invoicing.invoice.cancelled', draft.id).length === 1);

    const posted = body(await create({ line_items: [specLine] })).invoice;
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: posted.id }));
    const refused = await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: posted.id });
    expect(refused).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining('only draft or proforma invoices can be cancelled'),
    });
    expect((await stored(posted.id)).invoicestatus).toBe('open');
    expect(await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: draft.id })).toMatchObject({
      ok: false,
      message: expect.stringContaining('already cancelled'),
    });
    expect(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: draft.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
  });

  it('cancels as one statement on an unlocked read, its event saying the version and time stored; a draft changed since goes the locked way', async () => {
    const draft = body(await create({ line_items: [specLine] })).invoice;
    // Read, then the draft changes (as an added line changes it): the cancellation decided on the read writes nothing.
    const read = await readInvoiceAsRead(svc.db, 1, draft.id);
    await svc.db('invoices').where({ id: draft.id }).update({ updated_at: svc.db.fn.now() });
    const cancelAlone = { ...cancellationAlone(draft.id, decideCancellation(read.row, read.today), read.read), events: [], reply: {} };
    await expect(storeAlone(svc.db, cancelAlone, undefined, { ok: true, status: 200, body: {} })).rejects.toBeInstanceOf(NotAsDecided);
    expect((await stored(draft.id)).invoicestatus).toBe('draft');

    // Through the service: the event carries what the statement stored, not what it read.
    body(await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: draft.id }));
    await waitFor(() => eventsOf('invoicing.invoice.cancelled', draft.id).length === 1);
    const row = await stored(draft.id);
    expect(row.version).toBe(read.row.version + 2);
    expect(eventsOf('invoicing.invoice.cancelled', draft.id)[0]!.data).toMatchObject({
      invoice_id: draft.id,
      invoicenumber: draft.invoicenumber,
      version: row.version,
      cancelled_at: formatDateTime(row.cancelled_at),
    });
  });

  it('takes partial payments, refuses overpayment and is paid when nothing is due', async () => {
    // Dated before its payments: dates run forward.
    const inv = body(await create({ invoicedatetime: '2025-04-01T09:00:00', line_items: [specLine] })).invoice;
    const draftPay = await svc.call('invoicing.invoice.register_payment', { register_payment: true, id: inv.id, amount: 10 });
    expect(draftPay).toMatchObject({ ok: false, code: 'invalid_state' });
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));

    const first = body(
      await svc.call('invoicing.invoice.register_payment', {
        register_payment: true,
        id: inv.id,
        amount: '100.10',
        payment_date: '2025-05-01',
        journal: 'Bank EUR',
      }),
    );
    expect(first.invoice).toMatchObject({ invoicestatus: 'open', amount_paid: 100.1, due_amount: 158.65 });
    expect(first.payment).toMatchObject({ amount: 100.1, payment_date: '2025-05-01', journal: 'Bank EUR' });

    const over = await svc.call('invoicing.invoice.register_payment', { register_payment: true, id: inv.id, amount: 158.66 });
    expect(over).toMatchObject({
      ok: false,
      status: 400,
      code: 'validation_failed',
      message: expect.stringContaining('exceeds the amount due 158.65'),
    });
    expect(await svc.db('payments').where({ invoice_id: inv.id })).toHaveLength(1);
    expect((await stored(inv.id)).amount_paid).toBe('100.10');

    const last = body(
      await svc.call('invoicing.invoice.register_payment', {
        register_payment: true,
        id: inv.id,
        amount: 158.65,
        payment_date: '2025-05-02',
      }),
    );
    expect(last.invoice).toMatchObject({ invoicestatus: 'paid', amount_paid: 258.75, due_amount: 0 });
    expect(await svc.call('invoicing.invoice.register_payment', { register_payment: true, id: inv.id, amount: 1 })).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });

    const balances = body(await svc.call('invoicing.invoice.balances', { id: inv.id, include_items: true })).invoices[0];
    expect(balances).toMatchObject({ invoicetotal: 258.75, amount_paid: 258.75, due_amount: 0, invoicestatus: 'paid' });
    expect(balances.journals).toEqual([expect.objectContaining({ journalname: 'Sales Journal', amount: 258.75 })]);
    expect(balances.payjournals.map((j: any) => [j.journalname, j.journaldate, j.amount])).toEqual([
      ['Bank EUR', '2025-05-01', 100.1],
      ['Bank', '2025-05-02', 158.65],
    ]);
    expect(balances.line_items).toHaveLength(1);

    await waitFor(
      () =>
        eventsOf('invoicing.invoice.payment_registered', inv.id).length === 2 && eventsOf('invoicing.invoice.paid', inv.id).length === 1,
    );
    const paymentEvents = eventsOf('invoicing.invoice.payment_registered', inv.id).map((e) => e.data);
    expect(paymentEvents.map((d) => [d.amount, d.amount_paid, d.due_amount])).toEqual([
      [100.1, 100.1, 158.65],
      [158.65, 258.75, 0],
    ]);
    expect(new Set(paymentEvents.map((d) => d.payment_id)).size).toBe(2);
    const payLines = await svc
      .db('journal_lines')
      .whereIn(
        'entry_id',
        balances.payjournals.map((j: any) => j.id),
      )
      .orderBy('id')
      .select('account', 'debit', 'credit');
    expect(payLines[0]).toEqual({ account: 'Bank EUR', debit: '100.10', credit: '0.00' });
    expect(payLines[1]).toEqual({ account: '1200 Accounts Receivable', debit: '0.00', credit: '100.10' });
  });

  it('never lets two racing payments pay more than is due', async () => {
    const inv = body(await create({ line_items: [tenthsLine] })).invoice;
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    const replies = await Promise.all(
      [1, 2, 3].map(() => svc.call('invoicing.invoice.register_payment', { register_payment: true, id: inv.id, amount: 0.2 })),
    );
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect((await stored(inv.id)).amount_paid).toBe('0.20');
  });

  it('reads an open invoice past its due date as overdue everywhere, at once', async () => {
    const inv = body(
      await create({ partner: 10, invoicedatetime: '2024-01-01T00:00:00', invoicedue: '2024-01-31', line_items: [specLine] }),
    ).invoice;
    const v = body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    expect(v.invoice.invoicestatus).toBe('overdue');
    const overdue = body(await svc.call('invoicing.invoice.list', { status_filter: 'overdue' })).invoices.map((i: any) => i.id);
    expect(overdue).toContain(inv.id);
    const open = body(await svc.call('invoicing.invoice.list', { status_filter: 'open', page_size: 100 })).invoices;
    expect(open.map((i: any) => i.id)).not.toContain(inv.id);
    expect(open.every((i: any) => i.invoicestatus === 'open')).toBe(true);
    expect(body(await svc.call('invoicing.invoice.balances', { id: inv.id })).invoices[0].invoicestatus).toBe('overdue');
    expect(await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: inv.id })).toMatchObject({
      ok: false,
      message: expect.stringContaining('overdue'),
    });
    const paid = body(await svc.call('invoicing.invoice.register_payment', { register_payment: true, id: inv.id, amount: 258.75 }));
    expect(paid.invoice.invoicestatus).toBe('paid');
  });

  it('creates at most one invoice per source document, even racing', async () => {
    const source = {
      sourcetype: 'quotation',
      sourceid: '77',
      sourcenumber: 'QUO-00077',
      line_items: [specLine],
      invoicetype: 'invoiceout',
      partner: 10,
    };
    const replies = await Promise.all([1, 2, 3, 4, 5].map(() => svc.call('invoicing.invoice.create_from_source', source)));
    const bodies = replies.map(body);
    expect(bodies.filter((b) => b.created)).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.invoice.id)).size).toBe(1);
    expect(bodies[0]!.invoice).toMatchObject({
      orgid: 1,
      invoicestatus: 'draft',
      subtotal: 225,
      tax_amount: 33.75,
      invoicetotal: 258.75,
      sourcenumber: 'QUO-00077',
    });
    expect(await svc.db('invoices').where({ converted_from_quotation_id: 77 })).toHaveLength(1);
    // A client's invoice naming the same quotation is free text: it is made, and is not the conversion.
    const typed = body(await create({ sourcetype: 'quotation', sourceid: '77', sourcenumber: 'QUO-00077' })).invoice;
    expect((await stored(typed.id)).converted_from_quotation_id).toBeNull();
    expect(body(await svc.call('invoicing.invoice.create_from_source', source)).invoice.id).toBe(bodies[0]!.invoice.id);
    // The numbers of the losers went back to the series: the next one follows without a gap.
    const taken = (await svc.db('invoices').where({ org_id: 1 }).where('invoicenumber', 'like', 'INV-%').pluck('invoicenumber')).sort();
    const next = body(await create({})).invoice.invoicenumber;
    expect(next).toBe(`INV-${String(Number(taken[taken.length - 1]!.slice(4)) + 1).padStart(5, '0')}`);
  });

  it('lists with filters, search over numbers and partner names, sorting and pagination', async () => {
    await svc.publish(
      'partners.partner.created',
      2,
      testing.partnerRecord(2, 20, {
        partnername: 'Initech',
        display_name: 'Initech Ltd',
        currency: null,
        created_at: '2025-01-01T00:00:00',
        updated_at: '2025-01-02T00:00:00',
      }),
    );
    // The read model follows partner events; the name search below depends on it.
    await testing.waitUntil(
      async () => (await svc.db('partner_directory').where({ org_id: 2, id: 20 }).first())?.display_name === 'Initech Ltd',
    );
    const a = body(await create({ partner: 20, invoicedatetime: '2025-01-10T00:00:00', line_items: [specLine] }, 2)).invoice;
    const b = body(await create({ partner: 20, invoicedatetime: '2025-02-10T00:00:00', line_items: [tenthsLine] }, 2)).invoice;
    const c = body(
      await create({ partner: 20, invoicedatetime: '2025-03-10T00:00:00', line_items: [taxIncludedLine], invoicetype: 'creditout' }, 2),
    ).invoice;
    const list = (q: Record<string, unknown>) => svc.call('invoicing.invoice.list', q, 2).then(body);

    const all = await list({ include_items: true });
    expect(all.invoices.map((i: any) => i.id)).toEqual([c.id, b.id, a.id]);
    expect(all.invoices[2]).toMatchObject({
      orgid: 2,
      invoicenumber: 'INV-00001',
      invoicetype: 'invoiceout',
      invoicestatus: 'draft',
      invoicedatetime: '2025-01-10T00:00:00',
      invoicetotal: 258.75,
      due_amount: 258.75,
      creator: '5',
      recurring: { enabled: false },
      partner: { id: 20, partnername: 'Initech', display_name: 'Initech Ltd', imageUrl: null },
    });
    expect(all.invoices[2].line_items).toHaveLength(1);
    expect((await list({})).invoices[0].line_items).toBeUndefined();
    expect(all.pagination).toEqual({ page_number: 1, page_size: 25, total_items: 3, total_pages: 1, has_next: false, has_previous: false });

    expect((await list({ sort_by: 'total', sort_order: 'asc' })).invoices.map((i: any) => i.invoicetotal)).toEqual([0.3, 115, 258.75]);
    expect((await list({ sort_by: 'number', sort_order: 'asc' })).invoices.map((i: any) => i.invoicenumber)).toEqual([
      'CRN-00001',
      'INV-00001',
      'INV-00002',
    ]);
    expect((await list({ sort_by: 'date', sort_order: 'asc' })).invoices.map((i: any) => i.id)).toEqual([a.id, b.id, c.id]);
    expect((await list({ date_from: '2025-02-10', date_to: '2025-03-09' })).invoices.map((i: any) => i.id)).toEqual([b.id]);
    expect((await list({ amount_min: 100, amount_max: 200 })).invoices.map((i: any) => i.id)).toEqual([c.id]);
    expect((await list({ search_key: 'crn-' })).invoices.map((i: any) => i.id)).toEqual([c.id]);
    expect((await list({ search_key: 'initech ltd' })).pagination.total_items).toBe(3);
    expect((await list({ search_key: '%' })).pagination.total_items).toBe(0);
    expect((await list({ partner_ids: ['20'], status_filter: 'draft' })).pagination.total_items).toBe(3);
    expect((await list({ partner_ids: ['21'] })).pagination.total_items).toBe(0);
    const page2 = await list({ page_size: 2, page_number: 2 });
    expect(page2.invoices.map((i: any) => i.id)).toEqual([a.id]);
    expect(page2.pagination).toMatchObject({ total_items: 3, total_pages: 2, has_next: false, has_previous: true });
    expect(await svc.call('invoicing.invoice.list', { date_from: '2025-03-01', date_to: '2025-01-01' }, 2)).toMatchObject({
      ok: false,
      code: 'validation_failed',
    });
    // By due date, either way, an invoice without one comes last.
    const d = body(await create({ partner: 20, invoicedatetime: '2025-01-20T00:00:00', invoicedue: '2025-04-01' }, 2)).invoice;
    const e = body(await create({ partner: 20, invoicedatetime: '2025-01-20T00:00:00', invoicedue: '2025-02-01' }, 2)).invoice;
    expect((await list({ sort_by: 'due', sort_order: 'asc', page_size: 2 })).invoices.map((i: any) => i.id)).toEqual([e.id, d.id]);
    const byDueDesc = (await list({ sort_by: 'due' })).invoices.map((i: any) => i.id);
    expect(byDueDesc.slice(0, 2)).toEqual([d.id, e.id]);
    expect(byDueDesc).toHaveLength(5);
    for (const extra of [d, e]) body(await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: extra.id }, 2));
    expect((await list({ status_filter: 'cancelled' })).invoices.map((i: any) => i.id).sort()).toEqual([d.id, e.id].sort());
  });

  it('refuses a partner once its deletion event has arrived', async () => {
    expect(body(await create({ partner: 12 })).invoice.partner).toBe('12');
    await svc.publish(
      'partners.partner.deleted',
      1,
      testing.partnerRecord(1, 12, {
        partnername: 'Gone Soon',
        display_name: 'Gone Soon',
        currency: null,
        created_at: '2025-01-01T00:00:00',
        updated_at: '2025-01-01T00:00:00',
      }),
    );
    await testing.waitUntil(async () => Boolean((await svc.db('partner_directory').where({ org_id: 1, id: 12 }).first())?.deleted_at));
    const before = await invoiceCount();
    expect(await create({ partner: 12 })).toMatchObject({ ok: false, code: 'not_found', message: 'Partner 12 not found' });
    expect(await invoiceCount()).toBe(before);
  });

  it('keeps organizations apart', async () => {
    const mine = body(await create({ line_items: [specLine] })).invoice;
    for (const [op, payload] of [
      ['invoicing.invoice.validate', { validate_invoice: true, id: mine.id }],
      ['invoicing.invoice.cancel', { cancel_invoice: true, id: mine.id }],
      ['invoicing.invoice.add_line', { invoice_id: mine.id, ...tenthsLine }],
      ['invoicing.invoice.balances', { id: mine.id }],
      ['invoicing.invoice.register_payment', { register_payment: true, id: mine.id, amount: 1 }],
    ] as const) {
      expect(await svc.call(op, payload, 2)).toMatchObject({
        ok: false,
        status: 400,
        code: 'not_found',
        message: `Invoice ${mine.id} not found`,
      });
    }
    const theirs = body(await svc.call('invoicing.invoice.list', { page_size: 100 }, 2)).invoices;
    expect(theirs.every((i: any) => i.orgid === 2)).toBe(true);
    const row = await stored(mine.id);
    expect([row.invoicestatus, row.invoicetotal]).toEqual(['draft', '258.75']);
  });

  describe('lines know the catalog', () => {
    const everything = async () => ({
      invoices: await svc.db('invoices').orderBy('id'),
      lines: await svc.db('invoice_lines').orderBy('id'),
      outbox: await svc.db('outbox').count({ n: '*' }),
    });

    it('keeps a snapshot of the product and puts the lines, variant and location in the validated event', async () => {
      catalog.products.set(610, { name: 'Cable', sku: 'CAB-1', uom: 'm', price: 2.5, description: 'Copper cable', type: 'inventory' });
      catalog.locations.add('31');
      const inv = body(
        await create({ line_items: [{ product_id: 610, location_id: '31', quantity: 10, tax_rate: 0, tax_included: false }] }),
      ).invoice;
      expect(inv.line_items).toEqual([
        expect.objectContaining({
          product_id: '610',
          variant_id: null,
          location_id: '31',
          product_name: 'Cable',
          sku: 'CAB-1',
          uom: 'm',
          description: 'Copper cable',
          price: 2.5,
          total: 25,
        }),
      ]);
      body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
      await waitFor(() => eventsOf('invoicing.invoice.validated', inv.id).length === 1);
      expect(eventsOf('invoicing.invoice.validated', inv.id)[0]!.data.lines).toEqual([
        { line_id: inv.line_items[0].id, product_id: '610', variant_id: null, location_id: '31', quantity: 10 },
      ]);
    });

    it('leaves out of the validated event the lines of a draft made before lines were checked against the catalog', async () => {
      catalog.products.set(612, { name: 'Bolt', sku: 'B-1', uom: 'pcs', type: 'inventory' });
      const inv = body(
        await create({ line_items: [{ product_id: 612, quantity: 4, price: 1, tax_rate: 0, tax_included: false }, specLine] }),
      ).invoice;
      // The second line as an earlier version left it: its product id never checked (migration 007 marks such lines).
      await svc.db('invoice_lines').where({ id: inv.line_items[1].id }).update({ catalog_checked: false });
      body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
      await waitFor(() => eventsOf('invoicing.invoice.validated', inv.id).length === 1);
      expect(eventsOf('invoicing.invoice.validated', inv.id)[0]!.data.lines).toEqual([
        { line_id: inv.line_items[0].id, product_id: '612', variant_id: null, location_id: null, quantity: 4 },
      ]);
    });

    it("keeps a source line's snapshot on conversion whatever the catalog says now; catalog only confirms the product exists", async () => {
      catalog.products.set(614, { name: 'Renamed since', sku: 'NEW-614', uom: 'kg', description: 'Catalog text now', price: 99 });
      const source = (sourceid: string, line: Record<string, unknown>) =>
        svc.call('invoicing.invoice.create_from_source', {
          invoicetype: 'invoiceout',
          partner: 10,
          sourcetype: 'quotation',
          sourceid,
          sourcenumber: `QUO-${sourceid}`,
          line_items: [line],
        });
      const quoted = { product_id: '614', quantity: 2, price: 5, tax_rate: 0, tax_included: false };
      const kept = body(
        await source('914', {
          ...quoted,
          product_name: 'As quoted',
          snapshot: { product_name: 'As quoted', description: null, sku: 'OLD-614', uom: null },
        }),
      ).invoice;
      expect(kept.line_items).toEqual([
        expect.objectContaining({
          product_id: '614',
          product_name: 'As quoted',
          description: null,
          sku: 'OLD-614',
          uom: null,
          price: 5,
          total: 10,
        }),
      ]);
      // A sender without snapshots (from before them) still converts, taking the catalog's.
      const legacy = body(await source('915', quoted)).invoice;
      expect(legacy.line_items).toEqual([
        expect.objectContaining({ product_name: 'Renamed since', description: 'Catalog text now', sku: 'NEW-614', uom: 'kg', price: 5 }),
      ]);
      catalog.missing.add(614);
      expect(
        await source('916', { ...quoted, snapshot: { product_name: 'As quoted', description: null, sku: 'OLD-614', uom: null } }),
      ).toMatchObject({
        ok: false,
        status: 400,
        code: 'not_found',
        errors: [{ field: 'line_items.0.product_id' }],
      });
    });

    it('refuses unknown products on create, add line and conversion, naming the line and field, writing nothing', async () => {
      catalog.missing.add(611);
      const draft = body(await create({ line_items: [specLine] })).invoice;
      const before = await everything();
      expect(await create({ line_items: [specLine, { ...specLine, product_id: 611 }] })).toMatchObject({
        ok: false,
        status: 400,
        code: 'not_found',
        errors: [{ field: 'line_items.1.product_id' }],
      });
      expect(await svc.call('invoicing.invoice.add_line', { invoice_id: draft.id, ...specLine, product_id: '611' })).toMatchObject({
        ok: false,
        status: 400,
        errors: [{ field: 'product_id' }],
      });
      expect(await svc.call('invoicing.invoice.add_line', { invoice_id: draft.id, ...specLine, location_id: '999' })).toMatchObject({
        ok: false,
        status: 400,
        errors: [{ field: 'location_id' }],
      });
      expect(
        await svc.call('invoicing.invoice.create_from_source', {
          invoicetype: 'invoiceout',
          partner: 10,
          sourcetype: 'quotation',
          sourceid: '902',
          sourcenumber: 'QUO-902',
          line_items: [{ ...specLine, product_id: 611 }],
        }),
      ).toMatchObject({
        ok: false,
        status: 400,
        errors: [{ field: 'line_items.0.product_id' }],
      });
      expect(await everything()).toEqual(before);
    });

    it('answers 503 while catalog is down and records nothing under the key', async () => {
      const draft = body(await create({ line_items: [specLine] })).invoice;
      await catalog.stop();
      try {
        const before = await everything();
        const meta = { operationKey: 'inv-catalog-down', requestId: 'r2' };
        expect(
          await svc.call('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 10, line_items: [specLine] }, 1, meta),
        ).toMatchObject({ ok: false, status: 503, code: 'service_unavailable' });
        expect(await svc.call('invoicing.invoice.add_line', { invoice_id: draft.id, ...specLine })).toMatchObject({
          ok: false,
          status: 503,
        });
        expect(await everything()).toEqual(before);
        expect(await svc.db(OPERATION_KEYS).where({ key: 'inv-catalog-down' })).toEqual([]);
      } finally {
        catalog = await testing.startCatalogStub(svc);
      }
      // The service's stop ends the first stand-in only; this one ends with the test.
      const restarted = catalog;
      afterAllStops.push(() => restarted.stop());
      expect(
        body(
          await svc.call('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 10, line_items: [specLine] }, 1, {
            operationKey: 'inv-catalog-down',
            requestId: 'r3',
          }),
        ).invoice.line_items,
      ).toHaveLength(1);
    });
  });
});
