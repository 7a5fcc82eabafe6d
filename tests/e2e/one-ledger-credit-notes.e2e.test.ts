import { createDb, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { newProducts } from '../support/catalog';
import { ok } from '../support/invoicing';
import { eventually, startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/**
 * Issue 40, "One ledger, one truth", cases 5, 8 and 9: what a credit note may do to the invoice it
 * credits, through the gateway over PostgreSQL and RabbitMQ (docs/invoicing.md "Credit notes"). It is
 * in that invoice's currency, its cap compared in it (8); it settles that invoice first, so only what
 * exceeds the invoice's open amount is credit to use elsewhere or refund (5); and it returns to stock
 * at most what the invoice delivered (9).
 */
describe('one ledger: credit notes and the invoice they credit', () => {
  let sys: TestSystem;
  let db: Knex;
  let service: number;

  beforeAll(async () => {
    sys = await startTestSystem();
    db = createDb(sys.databaseUrl, 'invoicing', 2);
    [service] = (await newProducts(sys, ['Consulting'])) as [number];
    await ok(post('/organization/setprofile', { default_currency: 'EUR' }));
    await eventually(async () => expect((await db('organization_settings').where({ org_id: 1 }).first())?.default_currency).toBe('EUR'));
  });
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  const post = (path: string, body: Record<string, unknown>) => sys.post(path, { org_id: 1, userid: 'e2e', ...body });
  const payments = (body: Record<string, unknown>) => post('/invoicing/payments', body);
  const amount = (price: number | string, product = service, quantity = 1) => [
    { product_id: product, quantity, price, tax_rate: 0, tax_included: false },
  ];
  async function customer(name: string, currency = 'EUR'): Promise<number> {
    const id = (await ok(post('/crm/editpatner', { action: 'create', partnername: name, partner_type: 'customer', currency }))).body.partner
      .id;
    await eventually(async () => expect(await db('partner_directory').where({ id }).first()).toBeDefined());
    return id;
  }
  const create = async (fields: Record<string, unknown>) => (await ok(post('/invoicing/invoice/new', fields))).body.invoice;
  const validate = (id: number) => post('/invoicing/invoice/new', { validate_invoice: true, id });
  async function issued(fields: Record<string, unknown>) {
    const inv = await create({ invoicetype: 'invoiceout', ...fields });
    await ok(validate(inv.id));
    return inv;
  }
  const creditOf = (invoice: { id: number }, fields: Record<string, unknown>) =>
    post('/invoicing/invoice/new', { invoicetype: 'creditout', sourcetype: 'invoice', sourceid: String(invoice.id), ...fields });
  const balances = async (id: number) => (await ok(post('/invoicing/getinvoice', { id }))).body.invoices[0];
  /** Sends a request, judges its refusal (and the field it names, if any), and proves invoicing's schema is as it was. */
  async function refusedUnchanged(send: () => Promise<ApiResponse>, code: string, field?: string) {
    const before = await testing.schemaSnapshot(db, 'invoicing');
    const r = await send();
    expect([r.statusCode, r.body.code]).toEqual([400, code]);
    if (field) expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await testing.schemaSnapshot(db, 'invoicing')).toEqual(before);
    return r;
  }

  describe('case 8: a credit note is in the currency of the invoice it credits', () => {
    it('refuses a EUR credit note of a USD invoice by `currency`, gives one that names none the invoice currency, and caps in it', async () => {
      const acme = await customer('Acme EUR buyer');
      const sale = await issued({ partner: acme, currency: 'USD', exchange_rate: '0.9', line_items: amount(100) });

      // At creation, both known: refused on `currency`, nothing written.
      await refusedUnchanged(
        () => creditOf(sale, { partner: acme, currency: 'EUR', line_items: amount(10) }),
        'validation_failed',
        'currency',
      );

      // Naming none, it takes the invoice's USD (not the partner's EUR), and books at its rate.
      const first = (await ok(creditOf(sale, { partner: acme, exchange_rate: '0.9', line_items: amount(60) }))).body.invoice;
      expect(first.currency).toBe('USD');
      await ok(validate(first.id));

      // The cap is in USD: 60 credited, 40 left, to the cent.
      const over = (await ok(creditOf(sale, { partner: acme, currency: 'USD', exchange_rate: '0.9', line_items: amount('40.01') }))).body
        .invoice;
      const refused = await refusedUnchanged(() => validate(over.id), 'credit_exceeds_invoice', 'invoicetotal');
      expect(refused.body.message).toContain('60.00 is credited already, 40.00 is still creditable');

      // A draft stored in another currency (made before the rule) is refused at validation, by `currency`.
      const stale = (await ok(creditOf(sale, { partner: acme, exchange_rate: '0.9', line_items: amount(5) }))).body.invoice;
      await db('invoices').where({ id: stale.id }).update({ currency: 'EUR', exchange_rate: null });
      const r = await refusedUnchanged(() => validate(stale.id), 'validation_failed', 'currency');
      expect(r.body.message).toContain(`${sale.invoicenumber} is in USD, not EUR`);
    });
  });

  describe('case 5: a credit note settles the invoice it credits first', () => {
    it('a credit note for the whole of an unpaid overdue invoice leaves it paid with 0 open: no refund of that credit, no write-off', async () => {
      const dora = await customer('Dora Overdue');
      const sale = await issued({
        partner: dora,
        invoicedatetime: '2025-01-05T10:00:00',
        invoicedue: '2025-01-20',
        line_items: amount(100),
      });
      expect((await balances(sale.id)).invoicestatus).toBe('overdue');

      const note = (await ok(creditOf(sale, { partner: dora, invoicedatetime: '2025-02-01T10:00:00', line_items: amount(100) }))).body
        .invoice;
      const validated = (await ok(validate(note.id))).body.invoice;
      expect(validated).toMatchObject({ invoicestatus: 'paid', invoicetotal: 100, due_amount: 0 });
      expect(await balances(sale.id)).toMatchObject({ invoicestatus: 'paid', amount_paid: 100, due_amount: 0 });

      // One allocation from the note to the invoice, on the note's date, marked as its settlement.
      const allocations = await db('payment_allocations').where({ credit_note_id: note.id });
      expect(allocations.map((a) => [a.invoice_id, Number(a.amount), a.settles_credited, a.status])).toEqual([
        [sale.id, 100, true, 'active'],
      ]);

      // Its credit is used up: refunding any of it is refused, and the invoice has nothing to write off.
      await refusedUnchanged(
        () => payments({ action: 'refund', credit_note_id: note.id, amount: 100, refund_date: '2025-02-02' }),
        'validation_failed',
        'amount',
      );
      const writeOff = await refusedUnchanged(
        () => post('/invoicing/invoice/new', { write_off: true, id: sale.id, write_off_date: '2025-02-02' }),
        'invalid_state',
      );
      expect(writeOff.body.message).toContain(`${sale.invoicenumber} is paid`);

      // Every view agrees: the partner owes nothing, in the ledger, the aged report and the statement.
      await sys.eventsSettled();
      const partner = (await ok(post('/crm/partners', { partner_id: dora }))).body.partner;
      expect([partner.balance, partner.receivable]).toEqual([0, 0]);
      const aged = (await ok(post('/invoicing/reports', { report: 'aged_receivables', as_of: '2025-03-01' }))).body;
      expect(aged.partners.find((p: { partner: number }) => p.partner === dora)).toBeUndefined();
      const statement = (
        await ok(post('/invoicing/reports', { report: 'statement', partner: dora, date_from: '2025-01-01', date_to: '2025-03-01' }))
      ).body;
      expect(statement.lines.map((l: Record<string, unknown>) => [l.date, l.kind, l.debit, l.credit, l.balance])).toEqual([
        ['2025-01-05', 'invoice', 100, 0, 100],
        ['2025-02-01', 'credit_note', 0, 100, 0],
        ['2025-02-01', 'allocation', 0, 0, 0],
      ]);
      expect(statement.closing_balance).toBe(0);

      // Validating again changes nothing: the note is no draft any more.
      const again = await validate(note.id);
      expect([again.statusCode, again.body.code]).toEqual([400, 'invalid_state']);
      expect(await db('payment_allocations').where({ credit_note_id: note.id })).toHaveLength(1);
    });

    it('only what exceeds the open amount is credit: it may be allocated elsewhere or refunded, and no more', async () => {
      const ella = await customer('Ella Part-paid');
      const sale = await issued({ partner: ella, invoicedatetime: '2025-03-01T10:00:00', line_items: amount(100) });
      const other = await issued({ partner: ella, invoicedatetime: '2025-03-02T10:00:00', line_items: amount(50) });
      await ok(
        payments({
          action: 'create',
          partner: ella,
          amount: 60,
          currency: 'EUR',
          direction: 'in',
          payment_date: '2025-03-05',
          allocations: [{ invoice_id: sale.id, amount: 60 }],
        }),
      );
      // A full credit note of a part-paid invoice: 40 settles its rest, 60 is credit.
      const note = (await ok(creditOf(sale, { partner: ella, invoicedatetime: '2025-03-10T10:00:00', line_items: amount(100) }))).body
        .invoice;
      expect((await ok(validate(note.id))).body.invoice).toMatchObject({ invoicestatus: 'open', due_amount: 60 });
      expect(await balances(sale.id)).toMatchObject({ invoicestatus: 'paid', amount_paid: 100, due_amount: 0 });

      // 30 of the credit settles another invoice, 30 goes back; nothing more.
      await ok(
        payments({
          action: 'allocate',
          credit_note_id: note.id,
          allocation_date: '2025-03-11',
          allocations: [{ invoice_id: other.id, amount: 30 }],
        }),
      );
      expect(
        (await ok(payments({ action: 'refund', credit_note_id: note.id, amount: 30, refund_date: '2025-03-12' }))).body.credit_note,
      ).toMatchObject({
        invoicestatus: 'paid',
        due_amount: 0,
      });
      await refusedUnchanged(
        () => payments({ action: 'refund', credit_note_id: note.id, amount: '0.01', refund_date: '2025-03-12' }),
        'validation_failed',
        'amount',
      );

      await sys.eventsSettled();
      const partner = (await ok(post('/crm/partners', { partner_id: ella }))).body.partner;
      // Owed: 100 + 50 invoiced − 60 paid − 100 credited + 30 refunded = 20, the other invoice's rest.
      expect(partner.receivable).toBe(20);
      expect(await balances(other.id)).toMatchObject({ due_amount: 20 });
    });

    it('two credit notes of one invoice validated at the same moment settle it once: together never beyond what was open', async () => {
      const finn = await customer('Finn Racing');
      const sale = await issued({ partner: finn, line_items: amount(100) });
      const notes = await Promise.all(
        [50, 50].map(async (price) => (await ok(creditOf(sale, { partner: finn, line_items: amount(price) }))).body.invoice),
      );
      const replies = await Promise.all(notes.map((n) => validate(n.id)));
      expect(replies.map((r) => [r.statusCode, r.body.invoice?.invoicestatus])).toEqual([
        [200, 'paid'],
        [200, 'paid'],
      ]);
      expect(await balances(sale.id)).toMatchObject({ invoicestatus: 'paid', amount_paid: 100, due_amount: 0 });
      const allocated = await db('payment_allocations').where({ invoice_id: sale.id }).sum({ total: 'amount' }).first();
      expect(Number(allocated?.total)).toBe(100);
    });

    it('a validation sent twice at once under one Idempotency-Key settles the invoice once, and the ledger counts it once', async () => {
      const gail = await customer('Gail Twice');
      const sale = await issued({ partner: gail, line_items: amount(80) });
      const note = (await ok(creditOf(sale, { partner: gail, line_items: amount(80) }))).body.invoice;
      const headers = { 'Idempotency-Key': `validate-${note.id}` };
      const twins = await Promise.all(
        [1, 2].map(() =>
          sys.post('/invoicing/invoice/new', { org_id: 1, userid: 'e2e', validate_invoice: true, id: note.id }, { headers }),
        ),
      );
      // One runs; its twin, while it runs, is 409 idempotency_conflict (docs/api.md) or its recorded reply.
      const answered = twins.filter((r) => r.statusCode === 200);
      expect(answered.length).toBeGreaterThanOrEqual(1);
      for (const r of twins.filter((t) => t.statusCode !== 200)) expect([r.statusCode, r.body.code]).toEqual([409, 'idempotency_conflict']);
      // Sent again once answered: the recorded reply, nothing run twice.
      const again = await sys.post(
        '/invoicing/invoice/new',
        { org_id: 1, userid: 'e2e', validate_invoice: true, id: note.id },
        { headers },
      );
      expect(again.body).toEqual(answered[0]!.body);
      expect(again.body.invoice).toMatchObject({ invoicestatus: 'paid', due_amount: 0 });
      expect(await db('payment_allocations').where({ credit_note_id: note.id })).toHaveLength(1);
      await sys.eventsSettled();
      const partner = (await ok(post('/crm/partners', { partner_id: gail }))).body.partner;
      expect([partner.balance, partner.receivable]).toEqual([0, 0]);
    });
  });

  describe('case 9: a credit note returns to stock at most what its invoice delivered', () => {
    let widget: number;
    const stock = async () => (await sys.client.catalog.stock.details({ org_id: '1', userid: 'e2e', product_id: widget })).current_stock;

    beforeAll(async () => {
      widget = (await sys.client.catalog.product.create({ org_id: '1', userid: 'e2e', name: 'Widget', type: 'inventory', stock: 10 }))
        .product.id;
    });

    it('refuses 1,000 widgets returned by a 10.00 credit note of a one-widget sale on the line quantity, moving no stock', async () => {
      const gus = await customer('Gus One-widget');
      // One widget, and some consulting, so the credit notes below stay within what may be credited.
      const sale = await issued({ partner: gus, line_items: [...amount(10, widget, 1), ...amount(100)] });
      await sys.eventsSettled();
      expect(await stock()).toBe(9);

      const huge = (await ok(creditOf(sale, { partner: gus, line_items: [{ ...amount('0.01', widget, 1000)[0] }] }))).body.invoice;
      const r = await refusedUnchanged(() => validate(huge.id), 'validation_failed', 'line_items.0.quantity');
      expect(r.body.message).toContain('1 delivered, 0 returned already, 1 may still come back');
      await sys.eventsSettled();
      expect(await stock()).toBe(9);

      // The one widget may come back, once; a second return is refused, by its second line.
      const back = (await ok(creditOf(sale, { partner: gus, line_items: amount(10, widget, 1) }))).body.invoice;
      await ok(validate(back.id));
      await sys.eventsSettled();
      expect(await stock()).toBe(10);
      const twice = (await ok(creditOf(sale, { partner: gus, line_items: [...amount(0, service, 1), ...amount('0.01', widget, 1)] }))).body
        .invoice;
      await refusedUnchanged(() => validate(twice.id), 'validation_failed', 'line_items.1.quantity');

      // A price-only rebate (`restock: false`) returns no goods: it is not capped by them, and moves nothing.
      const rebate = (await ok(creditOf(sale, { partner: gus, restock: false, line_items: amount('0.01', widget, 1000) }))).body.invoice;
      await ok(validate(rebate.id));
      await sys.eventsSettled();
      expect(await stock()).toBe(10);
      // Each line keeps what its validation moved: the cap reads it, not a guess.
      const stocked = async (id: number) =>
        (await db('invoice_lines').where({ invoice_id: id }).orderBy('id')).map((l) => (l.stocked === null ? null : Number(l.stocked)));
      expect([await stocked(sale.id), await stocked(back.id), await stocked(rebate.id), await stocked(huge.id)]).toEqual([
        [1, 1],
        [1],
        [0],
        [null], // a draft has moved nothing yet
      ]);
    });
  });
});
