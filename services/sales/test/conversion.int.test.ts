import { randomUUID } from 'node:crypto';
import { sales } from '@bo/contracts';
import { testing, type AmqpBus } from '@bo/runtime';
import { salesService } from '../src/service';
import { contractCall, daysFromToday, fakeInvoicing, fakePartners, ok, partnerRecord, removeService, separateBus, waitFor, type Reply } from './support';

const line = { product_id: 7, product_name: 'Widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false };
const taxIncluded = { product_id: '8', description: 'Service', quantity: '2', price: '115', tax_rate: '15', tax_included: true };

describe('converting quotations to invoices', () => {
  let svc: testing.TestService;
  let invoicing: Awaited<ReturnType<typeof fakeInvoicing>>;
  // The fake invoicing service has a connection of its own so that the last test can take it away.
  let invoicingBus: AmqpBus;
  let call: ReturnType<typeof contractCall>;
  beforeAll(async () => {
    // Sales waits 60% of this for invoicing: 1200 ms.
    svc = await testing.startTestService(salesService, { RPC_TIMEOUT_MS: '2000' });
    call = contractCall(svc);
    const partners = await fakePartners(svc);
    partners.add(partnerRecord(1, 1, { partnername: 'Acme Corp', currency: 'USD' }));
    invoicingBus = await separateBus(svc);
    invoicing = await fakeInvoicing(svc, invoicingBus);
  });
  afterAll(async () => {
    await invoicingBus?.close();
    await svc?.stop();
  });
  afterEach(() => {
    invoicing.state.delayMs = 0;
    invoicing.state.refuse = undefined;
  });

  const createQuotation = async (fields: Record<string, unknown> = {}) =>
    ok(
      await call('sales.quotation.create', {
        action: 'create_quotation', partner: 1, quotation_type: 'quotation', quotation_date: `${daysFromToday(0)}T10:00:00`, valid_until: daysFromToday(10),
        line_items: [line, taxIncluded], ...fields,
      }),
    ).quotation;
  const convert = (id: number, opts: { key?: string; invoicetype?: string } = {}): Promise<Reply> =>
    call('sales.quotation.convert', { userid: 'u7', action: 'convert_to_invoice', quotation_id: id, invoicetype: opts.invoicetype ?? 'invoiceout' }, 1, { idempotencyKey: opts.key });
  const state = async (id: number) => ({
    quotation: await svc.db('quotations').where({ id }).first(),
    events: await svc.db('outbox').where({ type: 'sales.quotation.converted' }).count({ n: '*' }),
    invoices: invoicing.invoices.size,
  });

  it('makes one draft invoice with the lines and totals, marks the quotation converted and publishes the event', async () => {
    const seen = await svc.collect(['sales.quotation.converted']);
    const q = await createQuotation({ comments: 'Deliver Monday', quotation_reference: 'PO-9' });
    const reply = ok(await convert(q.id));
    expect(reply.invoice).toEqual({ id: expect.any(Number), orgid: 1, invoicenumber: expect.stringMatching(/^INV-/), invoicetype: 'invoiceout', partner: '1', invoicestatus: 'draft', subtotal: 425, tax_amount: 63.75, invoicetotal: 488.75 });
    const sent = invoicing.requests.at(-1)!;
    expect(sent).toMatchObject({
      org_id: '1', userid: 'u7', invoicetype: 'invoiceout', partner: 1, invoicestatus: 'draft', comments: 'Deliver Monday', invoicereference: 'PO-9',
      subtotal: '425.00', tax_amount: '63.75', invoicetotal: '488.75', sourcetype: 'quotation', sourceid: String(q.id), sourcenumber: q.quotation_number,
    });
    expect(sent.line_items).toEqual([
      { product_id: '7', product_name: 'Widget', quantity: '5', price: '50', discount: '10', tax_rate: '15', tax_included: false, subtotal: '225.00', tax_amount: '33.75', total: '258.75' },
      { product_id: '8', description: 'Service', quantity: '2', price: '115', discount: '0', tax_rate: '15', tax_included: true, subtotal: '200.00', tax_amount: '30.00', total: '230.00' },
    ]);
    const row = await svc.db('quotations').where({ id: q.id }).first();
    expect(row).toMatchObject({ status: 'converted', invoice_id: reply.invoice.id, invoicenumber: reply.invoice.invoicenumber, invoicetype: 'invoiceout', updated_by: 'u7' });
    await waitFor(() => seen.some((e) => e.data['quotation_id'] === q.id));
    expect(seen.find((e) => e.data['quotation_id'] === q.id)).toMatchObject({
      type: 'sales.quotation.converted', org_id: 1,
      data: {
        quotation_id: q.id, quotation_number: q.quotation_number, quotation_type: 'quotation', invoice_id: reply.invoice.id, invoicenumber: reply.invoice.invoicenumber,
        invoicetype: 'invoiceout', partner_id: 1, subtotal: 425, tax_amount: 63.75, quotation_total: 488.75, converted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      },
    });
    // The partners service reads it with the published contract: it must parse and lose nothing.
    const event = seen.find((e) => e.data['quotation_id'] === q.id)!;
    expect(sales.quotationConverted.data.parse(event.data)).toEqual(event.data);
    const listed = ok(await call('sales.quotation.list', { search_key: q.quotation_number })).quotations[0];
    expect(listed).toMatchObject({ quotation_status: 'converted', invoice_id: reply.invoice.id, invoicenumber: reply.invoice.invoicenumber });

    // A second, explicit convert is refused and asks invoicing nothing.
    const before = await state(q.id);
    const calls = invoicing.requests.length;
    const again = await convert(q.id);
    expect(again).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
    expect(!again.ok && again.message).toContain(`already converted to invoice ${reply.invoice.invoicenumber}`);
    expect(invoicing.requests.length).toBe(calls);
    expect(await state(q.id)).toEqual(before);
    // A converted quotation is closed for lines, edits and cancellation.
    for (const r of [
      await call('sales.quotation.add_line', { action: 'add_line', quotation_id: q.id, ...line }),
      await call('sales.quotation.edit', { action: 'edit_quotation', quotation_id: q.id, comments: 'late' }),
      await call('sales.quotation.cancel', { action: 'cancel_quotation', quotation_id: q.id }),
    ]) expect(r).toMatchObject({ ok: false, code: 'invalid_state' });
    expect(await state(q.id)).toEqual(before);
  });

  it('makes one invoice when the same conversion is retried in parallel, every retry answering it', async () => {
    const q = await createQuotation();
    const key = randomUUID();
    const replies = await Promise.all(Array.from({ length: 5 }, () => convert(q.id, { key })));
    const invoices = replies.map((r) => ok(r).invoice);
    expect(new Set(invoices.map((i) => i.id)).size).toBe(1);
    expect([...invoicing.invoices.values()].filter((i) => i.id === invoices[0].id)).toHaveLength(1);
    expect(invoicing.requests.filter((r) => r.sourceid === String(q.id))).toHaveLength(5);
    expect(await svc.db('outbox').where({ type: 'sales.quotation.converted' }).whereRaw(`envelope->'data'->>'quotation_id' = ?`, [String(q.id)]).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('lets one of several different conversions in parallel win; the rest are refused', async () => {
    const q = await createQuotation();
    const replies = await Promise.all(Array.from({ length: 4 }, () => convert(q.id)));
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect(replies.filter((r) => !r.ok && r.code === 'invalid_state')).toHaveLength(3);
    expect(invoicing.requests.filter((r) => r.sourceid === String(q.id))).toHaveLength(1);
  });

  it('lets either a cancel or a conversion racing it win, never both', async () => {
    for (let round = 0; round < 3; round++) {
      const q = await createQuotation();
      const [converted, cancelled] = await Promise.all([convert(q.id), call('sales.quotation.cancel', { action: 'cancel_quotation', quotation_id: q.id })]);
      expect([converted.ok, cancelled.ok].filter(Boolean)).toHaveLength(1);
      const row = await svc.db('quotations').where({ id: q.id }).first();
      const invoiceMade = [...invoicing.invoices.keys()].includes(`1:quotation:${q.id}`);
      if (converted.ok) expect({ status: row.status, invoiceMade }).toEqual({ status: 'converted', invoiceMade: true });
      else expect({ status: row.status, invoiceMade, refusal: !converted.ok && converted.code }).toEqual({ status: 'cancelled', invoiceMade: false, refusal: 'invalid_state' });
    }
  });

  it('answers the same invoice on a retry after invoicing timed out, never a second one', async () => {
    const q = await createQuotation();
    const invoicesBefore = invoicing.invoices.size;
    invoicing.state.delayMs = 1800;
    const first = await convert(q.id);
    expect(first).toMatchObject({ ok: false, status: 504, code: 'timeout' });
    expect(await state(q.id)).toMatchObject({ quotation: { status: 'draft', invoice_id: null } });
    expect(invoicing.invoices.size).toBe(invoicesBefore + 1); // invoicing did its work; only the answer was late
    // That invoice has the lines of the attempt, and a retry answers it: no line may be added meanwhile.
    const lines = await svc.db('quotation_lines').where({ quotation_id: q.id }).count({ n: '*' });
    const extra = await call('sales.quotation.add_line', { action: 'add_line', quotation_id: q.id, ...line });
    expect(extra).toMatchObject({ ok: false, status: 400, code: 'invalid_state', message: expect.stringContaining('conversion to an invoice is unfinished') });
    expect(await svc.db('quotation_lines').where({ quotation_id: q.id }).count({ n: '*' })).toEqual(lines);
    expect(await state(q.id)).toMatchObject({ quotation: { status: 'draft', invoice_id: null, subtotal: '425.00' } });
    invoicing.state.delayMs = 0;
    const retry = ok(await convert(q.id));
    const made = invoicing.invoices.get(`1:quotation:${q.id}`)!;
    expect(retry.invoice.id).toBe(made.id);
    expect(invoicing.invoices.size).toBe(invoicesBefore + 1);
    expect((await svc.db('quotations').where({ id: q.id }).first()).invoice_id).toBe(made.id);
  });

  it('answers the first invoice again for a retry with the key of the conversion that succeeded', async () => {
    const q = await createQuotation();
    const key = randomUUID();
    const first = ok(await convert(q.id, { key }));
    const retry = ok(await convert(q.id, { key }));
    expect(retry.invoice).toEqual(first.invoice);
    expect(retry.message).toContain('already converted');
    expect(await convert(q.id, { key: randomUUID() })).toMatchObject({ ok: false, code: 'invalid_state' });
  });

  it('refuses cancelled, expired and empty quotations and passes on an invoicing refusal, changing nothing', async () => {
    const cancelled = await createQuotation();
    ok(await call('sales.quotation.cancel', { action: 'cancel_quotation', quotation_id: cancelled.id }));
    const expired = await createQuotation({ quotation_date: '2025-01-01T00:00:00', valid_until: '2025-01-15' });
    const empty = await createQuotation({ line_items: [] });
    const refusedByInvoicing = await createQuotation();
    const calls = invoicing.requests.length;
    const before = await Promise.all([cancelled, expired, empty, refusedByInvoicing].map((q) => state(q.id)));
    expect(await convert(cancelled.id)).toMatchObject({ ok: false, status: 400, code: 'invalid_state', message: expect.stringContaining('in status cancelled') });
    expect(await convert(expired.id)).toMatchObject({ ok: false, status: 400, code: 'invalid_state', message: expect.stringContaining('in status expired') });
    expect(await convert(empty.id)).toMatchObject({ ok: false, status: 400, code: 'invalid_state', message: expect.stringContaining('no lines') });
    expect(invoicing.requests.length).toBe(calls);
    invoicing.state.refuse = { code: 'validation_failed', message: 'partner is not a customer' };
    expect(await convert(refusedByInvoicing.id)).toMatchObject({ ok: false, status: 400, code: 'validation_failed', message: expect.stringContaining('partner is not a customer') });
    expect(await Promise.all([cancelled, expired, empty, refusedByInvoicing].map((q) => state(q.id)))).toEqual(before);
    expect(await convert(refusedByInvoicing.id, { invoicetype: 'proforma' })).toMatchObject({ ok: false, code: 'validation_failed', errors: [{ field: 'invoicetype' }] });
  });

  // Runs last: it takes the invoicing service away.
  it('answers 503 when no invoicing service is there, leaving the quotation convertible', async () => {
    const q = await createQuotation();
    await removeService(svc, invoicingBus, 'invoicing');
    const before = await state(q.id);
    const r = await convert(q.id);
    expect(r).toMatchObject({ ok: false, status: 503, code: 'service_unavailable', message: expect.stringContaining('invoicing service is unavailable') });
    expect(await state(q.id)).toEqual(before);
    expect(before.quotation).toMatchObject({ status: 'draft', invoice_id: null });
    // Lines can still be added: nothing can have been made for it.
    ok(await call('sales.quotation.add_line', { action: 'add_line', quotation_id: q.id, ...line }));
  });
});
