import { randomUUID } from 'node:crypto';
import type { Client, OperationNamed, RequestBody } from '@bo/client';
import { AmqpBus, createLogger } from '@bo/runtime';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

type CreateBody = RequestBody<OperationNamed<'partners.partner.create'>>;
/** What a test writes of a new partner; org_id comes from the organization, partner_type defaults to customer. */
type PartnerFields = Omit<CreateBody, 'org_id' | 'partner_type'> & Partial<Pick<CreateBody, 'partner_type'>>;
type ListQuery = Omit<RequestBody<OperationNamed<'partners.partner.list'>>, 'org_id'>;

/** Partners through the gateway with the typed client; raw HTTP where a body the types forbid is the point. */
describe('partners through the gateway', () => {
  let sys: TestSystem;
  let org1: Client;
  let org2: Client;
  beforeAll(async () => {
    // All services: a delete asks sales and invoicing whether the partner still has open documents.
    sys = await startTestSystem();
    org1 = sys.client;
    org2 = sys.clientOf(2);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const clientOf = (org: 1 | 2) => (org === 1 ? org1 : org2);
  const create = async (fields: PartnerFields, org: 1 | 2 = 1) =>
    (await clientOf(org).partners.partner.create({ org_id: String(org), userid: 'u1', partner_type: 'customer', ...fields })).partner;
  const list = (query: ListQuery = {}, org: 1 | 2 = 1) => clientOf(org).partners.partner.list({ org_id: String(org), ...query });
  const balance = (partnerId: number, includeTransactions?: boolean) =>
    org1.partners.partner.balance({
      org_id: '1',
      partner_id: partnerId,
      ...(includeTransactions === undefined ? {} : { include_transactions: includeTransactions }),
    });
  const countAll = async () => (await list({ page_size: 100 })).pagination.total_items;
  const names = (listed: { partners: Array<{ partnername: string }> }) => listed.partners.map((p) => p.partnername);

  it('creates a partner with every spec field and answers the spec record', async () => {
    const p = await create({
      partnername: 'Acme Corp',
      partner_type: 'both',
      email: 'billing@acme.test',
      phone: '+1 555 0100',
      address: '1 Road, Town',
      tax_number: 'VAT123',
      credit_limit: 1500.5,
      currency: 'EUR',
      payment_terms: 'Net 30',
      contact_person: 'Wile E.',
      notes: 'Prefers email',
    });
    expect(p).toEqual({
      id: expect.any(Number),
      orgid: 1,
      partnername: 'Acme Corp',
      display_name: 'Acme Corp',
      partner_type: 'both',
      email: 'billing@acme.test',
      phone: '+1 555 0100',
      address: '1 Road, Town',
      address_line1: null,
      address_line2: null,
      city: null,
      postal_code: null,
      region: null,
      country: null,
      tax_number: 'VAT123',
      credit_limit: 1500.5,
      balance: 0,
      committed: 0,
      currency: 'EUR',
      payment_terms: 'Net 30',
      contact_person: 'Wile E.',
      notes: 'Prefers email',
      peppol_id: null,
      bank_accounts: [],
      dunning_blocked: false,
      version: 1,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
    });
  });

  it('filters by type (a "both" partner is a customer and a vendor) and searches name, email and phone', async () => {
    await create({ partnername: 'Vend Ltd', partner_type: 'vendor', email: 'sales@vend.test', phone: '999-1234' });
    await create({ partnername: 'Buyer Inc', display_name: 'The Buyer', partner_type: 'customer' });
    const sorted = (listed: { partners: Array<{ partnername: string }> }) => names(listed).sort();
    expect(sorted(await list({ partner_type: 'vendor' }))).toEqual(['Acme Corp', 'Vend Ltd']);
    expect(sorted(await list({ partner_type: 'customer' }))).toEqual(['Acme Corp', 'Buyer Inc']);
    expect(sorted(await list({ partner_type: 'both' }))).toEqual(['Acme Corp']);
    expect(names(await list({ search: 'VEND' }))).toEqual(['Vend Ltd']);
    expect(names(await list({ search: 'the buy' }))).toEqual(['Buyer Inc']);
    expect(names(await list({ search: '@acme.TEST' }))).toEqual(['Acme Corp']);
    expect(names(await list({ search: '999-12' }))).toEqual(['Vend Ltd']);
  });

  it('matches LIKE wildcards and SQL text literally', async () => {
    await create({ partnername: '100% Cotton' });
    await create({ partnername: 'snake_case' });
    expect(names(await list({ search: '%' }))).toEqual(['100% Cotton']);
    expect(names(await list({ search: '_' }))).toEqual(['snake_case']);
    expect(names(await list({ search: "'; drop table partners; --" }))).toEqual([]);
    expect(names(await list({ search: '\\' }))).toEqual([]);
    expect(await countAll()).toBe(5);
  });

  it('paginates newest first with the spec pagination object', async () => {
    const page = await list({ page_size: 2, page_number: 2 });
    expect(page.pagination).toEqual({ page_number: 2, page_size: 2, total_items: 5, total_pages: 3, has_next: true, has_previous: true });
    expect(names(page)).toEqual(['Buyer Inc', 'Vend Ltd']);
    const beyond = await list({ page_size: 2, page_number: 9 });
    expect(beyond.partners).toEqual([]);
    expect(beyond.pagination).toEqual({
      page_number: 9,
      page_size: 2,
      total_items: 5,
      total_pages: 3,
      has_next: false,
      has_previous: true,
    });
    const first = await list();
    expect(first.pagination).toMatchObject({ page_number: 1, page_size: 25, has_previous: false, has_next: false });
    // The total counts the same filter and search as the page, whichever page is asked for.
    const vendors = await list({ partner_type: 'vendor', page_size: 1, page_number: 2 });
    expect(names(vendors)).toEqual(['Acme Corp']);
    expect(vendors.pagination).toMatchObject({ total_items: 2, total_pages: 2, has_next: false, has_previous: true });
    const searched = await list({ search: 'E', partner_type: 'customer', page_size: 2 });
    expect(names(searched)).toEqual(['snake_case', 'Buyer Inc']);
    expect(searched.pagination).toMatchObject({ total_items: 3, total_pages: 2, has_next: true });
    for (const bad of [{ page_size: 101 }, { page_size: 0 }, { page_number: 0 }]) {
      expect(await refusal(list(bad))).toMatchObject({ status: 400, code: 'validation_failed' });
    }
    // raw: the body is invalid on purpose (a page number that is not a number)
    const r = await sys.post('/crm/partners', { org_id: '1', page_number: 'two' });
    expect(r.statusCode).toBe(400);
    expect(r.body.code).toBe('validation_failed');
  });

  it('edits only the given fields and soft-deletes', async () => {
    const p = await create({ partnername: 'Temp', email: 'temp@x.test', credit_limit: 10 });
    const edited = await org1.partners.partner.edit({ org_id: '1', userid: 'u2', partner_id: p.id, phone: '123', credit_limit: '20.25' });
    expect(edited.partner).toMatchObject({ partnername: 'Temp', email: 'temp@x.test', phone: '123', credit_limit: 20.25 });
    const deleted = await org1.partners.partner.delete({ org_id: '1', userid: 'u2', partner_id: p.id });
    expect(deleted).toMatchObject({ message: expect.any(String) });
    expect((await list({ search: 'Temp' })).partners).toEqual([]);
    expect(await refusal(balance(p.id))).toMatchObject({ status: 400, code: 'not_found' });
  });

  it('takes a structured address and country beside the free-text address, on create and edit, and returns it everywhere', async () => {
    const p = await create({
      partnername: 'Addressed GmbH',
      address: 'Hauptstr. 1, 10115 Berlin',
      address_line1: 'Hauptstr. 1',
      city: 'Berlin',
      postal_code: '10115',
      country: 'de',
    });
    expect(p).toMatchObject({
      address: 'Hauptstr. 1, 10115 Berlin',
      address_line1: 'Hauptstr. 1',
      address_line2: null,
      city: 'Berlin',
      postal_code: '10115',
      region: null,
      country: 'DE',
      version: 1,
    });
    const edited = await org1.partners.partner.edit({
      org_id: '1',
      partner_id: p.id,
      address_line2: 'Hinterhaus',
      region: 'Berlin',
      postal_code: '',
    });
    expect(edited.partner).toMatchObject({
      address: 'Hauptstr. 1, 10115 Berlin',
      address_line1: 'Hauptstr. 1',
      address_line2: 'Hinterhaus',
      region: 'Berlin',
      postal_code: null,
      country: 'DE',
      version: 2,
    });
    expect((await list({ search: 'Addressed' })).partners).toEqual([edited.partner]);
    const bad = await refusal(org1.partners.partner.edit({ org_id: '1', partner_id: p.id, country: 'Germany' }));
    expect(bad).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'country' }] });
    expect((await list({ search: 'Addressed' })).partners[0]).toMatchObject({ country: 'DE', version: 2 });
    // Keep the counts the tests below expect.
    await org1.partners.partner.delete({ org_id: '1', partner_id: p.id });
  });

  it('shows the balance view with available credit and transactions', async () => {
    const p = await create({ partnername: 'Balance Co', credit_limit: 300 });
    const r = await balance(p.id, true);
    expect(r.partner).toEqual({
      id: p.id,
      partnername: 'Balance Co',
      display_name: 'Balance Co',
      email: null,
      phone: null,
      balance: 0,
      receivable: 0,
      committed: 0,
      credit_limit: 300,
      available_credit: 300,
      exposure: 0,
      currency: null,
      balances: [],
    });
    expect(r.transactions).toEqual([]);
    const without = await balance(p.id);
    expect(without.transactions).toBeUndefined();
  });

  it('refuses bad input with a 400 naming the field and changes nothing', async () => {
    const before = await countAll();
    // raw: the bodies are invalid on purpose (a required field missing, a wrong type, a type outside the enum)
    const malformed: Array<[Record<string, unknown>, string]> = [
      [{ partner_type: 'customer' }, 'partnername'],
      [{ partnername: 'X', partner_type: undefined }, 'partner_type'],
      [{ partnername: 123, partner_type: 'customer' }, 'partnername'],
      [{ partnername: 'X', partner_type: 'friend' }, 'partner_type'],
    ];
    for (const [fields, field] of malformed) {
      const r = await sys.post('/crm/editpatner', { org_id: '1', action: 'create', ...fields });
      expect(r.statusCode).toBe(400);
      expect(r.body.code).toBe('validation_failed');
      expect(r.body.message).toContain(field);
      expect(r.body.errors.map((e: any) => e.field)).toContain(field);
    }
    const cases: Array<[CreateBody, string]> = [
      [{ org_id: '1', partnername: 'X', partner_type: 'customer', email: 'not-an-email' }, 'email'],
      [{ org_id: '1', partnername: 'X', partner_type: 'customer', credit_limit: -5 }, 'credit_limit'],
      [{ org_id: '1', partnername: 'X', partner_type: 'customer', credit_limit: '1.234' }, 'credit_limit'],
      [{ org_id: '1', partnername: 'X', partner_type: 'customer', currency: 'EURO' }, 'currency'],
      [{ org_id: '1', partnername: 'X'.repeat(201), partner_type: 'customer' }, 'partnername'],
      [{ org_id: '1', partnername: '   ', partner_type: 'customer' }, 'partnername'],
    ];
    for (const [body, field] of cases) {
      const refused = await refusal(org1.partners.partner.create(body));
      expect(refused).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(refused.message).toContain(field);
      expect(refused.errors.map((e) => e.field)).toContain(field);
    }
    const p = (await list({ search: 'Acme' })).partners[0]!;
    // raw: the bodies are invalid on purpose (a type outside the enum; an edit without partner_id)
    const badEdit = await sys.post('/crm/editpatner', {
      org_id: '1',
      action: 'edit',
      partner_id: p.id,
      partner_type: 'nobody',
      phone: '000',
    });
    expect(badEdit.statusCode).toBe(400);
    const missingId = await sys.post('/crm/editpatner', { org_id: '1', action: 'edit', phone: '000' });
    expect(missingId.body.errors).toEqual([{ field: 'partner_id', message: 'partner_id is required' }]);
    expect(await countAll()).toBe(before);
    expect((await list({ search: 'Acme' })).partners[0]?.phone).toBe('+1 555 0100');
  });

  it("keeps each organization's partners to itself", async () => {
    const theirs = await create({ partnername: 'Org Two Only' }, 2);
    expect((await list({ search: 'Org Two' })).partners).toEqual([]);
    expect(names(await list({}, 2))).toEqual(['Org Two Only']);
    for (const call of [
      () => balance(theirs.id),
      () => org1.partners.partner.edit({ org_id: '1', partner_id: theirs.id, partnername: 'Stolen' }),
      () => org1.partners.partner.delete({ org_id: '1', partner_id: theirs.id }),
    ]) {
      expect(await refusal(call())).toMatchObject({ status: 400, code: 'not_found' });
    }
    // Using org 2's id with org 1's key is refused outright.
    expect(await refusal(org1.partners.partner.list({ org_id: '2' }))).toMatchObject({ status: 403 });
    expect((await list({}, 2)).partners[0]).toMatchObject({ partnername: 'Org Two Only' });
  });

  it('applies a redelivered invoicing event to the balance only once', async () => {
    const p = await create({ partnername: 'Redelivery Ltd', credit_limit: 100 });
    const bus = new AmqpBus({
      url: sys.system.config.AMQP_URL!,
      prefix: sys.system.config.BUS_PREFIX,
      log: createLogger('test', 'silent'),
    });
    await bus.connect();
    const event = {
      id: randomUUID(),
      type: 'invoicing.invoice.validated',
      occurred_at: '2026-01-01T00:00:00',
      org_id: 1,
      data: {
        invoice_id: 9001,
        invoicenumber: 'INV-09001',
        invoicetype: 'invoiceout',
        partner_id: p.id,
        invoicetotal: 40.4,
        journal_entry_id: 1,
        invoicedatetime: '2026-01-01T00:00:00',
        invoicedue: null,
        validated_at: '2026-01-01T00:00:00',
        sourcetype: null,
        sourceid: null,
        sourcenumber: null,
      },
    };
    // A marker event published after the duplicate: once its effect shows, the duplicate ahead of it
    // on the same queue has been handled too, so the balance is final without waiting a set time.
    const marker = { ...event, id: randomUUID(), data: { ...event.data, invoice_id: 9002, invoicenumber: 'INV-09002', invoicetotal: 1 } };
    try {
      await bus.publish(event);
      await bus.publish(event);
      await bus.publish(marker);
    } finally {
      await bus.close();
    }
    const view = () => balance(p.id, true);
    await eventually(async () => expect((await view()).transactions).toHaveLength(2));
    const final = await view();
    expect(final.partner).toMatchObject({ balance: 41.4, available_credit: 58.6 });
    expect(final.transactions).toHaveLength(2);
  });
});
